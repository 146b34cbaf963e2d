package dev.gpucomm.operator.image;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The host's shared libraries (the C library and its dynamic loader) that the native files of a
 * Java runtime link against, found with {@code ldd}.
 *
 * <p>An image built from scratch has no C library of its own: the runtime's launcher and JVM need
 * the same glibc they were linked with, so the image carries the build host's copy at the paths the
 * binaries name. Libraries ldd cannot find are left out: they belong to parts of the runtime that a
 * headless server never loads (AWT's X11 toolkit).
 */
public final class HostLibraries {

  // "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or "\t/lib64/ld-linux-x86-64.so.2
  // (0x...)"
  private static final Pattern LDD_LINE =
      Pattern.compile("^\\s*(?:\\S+\\s+=>\\s+)?(/\\S+)\\s+\\(0x[0-9a-f]+\\)\\s*$");

  private final Path javaRuntime;

  public HostLibraries(Path javaRuntime) {
    this.javaRuntime = javaRuntime.toAbsolutePath().normalize();
  }

  /** The absolute host paths of every library outside the runtime that its ELF files need. */
  public SortedSet<Path> needed() throws IOException, InterruptedException {
    var libraries = new TreeSet<Path>();
    for (Path elf : elfFiles()) {
      for (Path library : ldd(elf)) {
        if (!library.normalize().startsWith(javaRuntime)) {
          libraries.add(library);
        }
      }
    }
    if (libraries.isEmpty()) {
      throw new IOException("ldd found no C library for the runtime in " + javaRuntime);
    }
    return libraries;
  }

  private List<Path> elfFiles() throws IOException {
    try (Stream<Path> files = Files.walk(javaRuntime)) {
      return files.filter(Files::isRegularFile).filter(HostLibraries::isElf).sorted().toList();
    }
  }

  private static boolean isElf(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] magic = in.readNBytes(4);
      return magic.length == 4
          && magic[0] == 0x7f
          && magic[1] == 'E'
          && magic[2] == 'L'
          && magic[3] == 'F';
    } catch (IOException e) {
      return false;
    }
  }

  private static List<Path> ldd(Path elf) throws IOException, InterruptedException {
    Process ldd = new ProcessBuilder("ldd", elf.toString()).redirectErrorStream(true).start();
    String output = new String(ldd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int exit = ldd.waitFor();
    if (exit != 0) {
      throw new IOException("ldd " + elf + " failed (exit " + exit + "): " + output.strip());
    }
    var libraries = new ArrayList<Path>();
    for (String line : output.lines().toList()) {
      Matcher matcher = LDD_LINE.matcher(line);
      if (matcher.matches()) {
        libraries.add(Path.of(matcher.group(1)));
      }
    }
    return libraries;
  }
}
