package dev.gpucomm.runtime.cli;

import dev.gpucomm.runtime.launch.EnvVars;
import dev.gpucomm.runtime.launch.RankSettings.ProgressStyle;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a command runs with: its output streams, the environment it was started with, whether the
 * user asked for stack traces, and whether a person is watching (live progress).
 */
record CliContext(
    PrintStream out, PrintStream err, Map<String, String> env, boolean debug, boolean terminal) {

  /** The variables handed to rank processes: the GPUCOMM_* settings this command was given. */
  Map<String, String> rankEnvironment() {
    Map<String, String> passed = new LinkedHashMap<>();
    env.forEach(
        (name, value) -> {
          if (name.startsWith("GPUCOMM_") || name.equals("KUBERNETES_SERVICE_HOST")) {
            passed.put(name, value);
          }
        });
    if (debug) {
      passed.put(EnvVars.DEBUG, "1");
    }
    return passed;
  }

  ProgressStyle progress() {
    return terminal ? ProgressStyle.LIVE : ProgressStyle.LINES;
  }
}
