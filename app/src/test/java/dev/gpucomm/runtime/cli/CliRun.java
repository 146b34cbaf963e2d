package dev.gpucomm.runtime.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** One in-process invocation of the CLI and what it printed. */
record CliRun(int exitCode, String out, String err) {
  static CliRun of(Map<String, String> env, String... args) {
    return withDiagnostics(DiagCommand.CUDA_DIAGNOSTICS, env, args);
  }

  /** A run whose {@code gpucomm diag} starts {@code diagnosticsMain}. */
  static CliRun withDiagnostics(String diagnosticsMain, Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit;
    try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      exit = Gpucomm.execute(args, outStream, errStream, env, false, diagnosticsMain);
    }
    return new CliRun(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static CliRun of(String... args) {
    return of(Map.of(), args);
  }
}
