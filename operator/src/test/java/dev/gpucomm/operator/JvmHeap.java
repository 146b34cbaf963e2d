package dev.gpucomm.operator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Heap figures of another JVM, read with jcmd after asking it for a full GC. */
record JvmHeap(long usedBytes, long committedBytes) {
  private static final Pattern TOTAL_USED = Pattern.compile("total (\\d+)K, used (\\d+)K");

  static JvmHeap afterFullGc(long pid) throws IOException, InterruptedException {
    jcmd(pid, "GC.run");
    String info = jcmd(pid, "GC.heap_info");
    long committed = 0;
    long used = 0;
    Matcher matcher = TOTAL_USED.matcher(info);
    while (matcher.find()) {
      committed += Long.parseLong(matcher.group(1)) * 1024;
      used += Long.parseLong(matcher.group(2)) * 1024;
    }
    if (committed == 0) {
      throw new IllegalStateException("unexpected GC.heap_info output: " + info);
    }
    return new JvmHeap(used, committed);
  }

  static String jcmd(long pid, String... command) throws IOException, InterruptedException {
    Path java = Path.of(ProcessHandle.current().info().command().orElseThrow());
    Path jcmd = java.resolveSibling("jcmd");
    List<String> arguments = new ArrayList<>();
    arguments.add(jcmd.toString());
    arguments.add(Long.toString(pid));
    arguments.addAll(List.of(command));
    Process process = new ProcessBuilder(arguments).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException("jcmd " + String.join(" ", command) + " failed: " + output);
    }
    return output;
  }
}
