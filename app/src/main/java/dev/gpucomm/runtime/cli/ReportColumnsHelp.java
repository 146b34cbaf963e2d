package dev.gpucomm.runtime.cli;

/**
 * What each column of a benchmark's latency table holds, for the {@code --help} of the commands
 * that print or read that table, so that all of them say it in the same words.
 */
final class ReportColumnsHelp {
  static final String HEADING = "%nThe latency table (report.md, and what run and bench print):%n";

  /** Formatted by picocli: %n is a line break, %% a percent sign. */
  static final String COLUMNS =
      "  Tensor Shape     elements per rank: (tokens, hidden) or (elements,)%n"
          + "  Tensor Size      bytes per rank, in MB of 2^20 bytes%n"
          + "  <algorithm>      median time per call, in microseconds: each rank takes the%n"
          + "                   median of its timed calls and the slowest rank's is shown;%n"
          + "                   graph replay where measured, else eager (marked *). The%n"
          + "                   progress lines print one rank's own median instead.%n"
          + "  Best (Speedup vs B)%n"
          + "                   the fastest algorithm at that size, and how many times%n"
          + "                   faster it is than column B (nccl on GPUs, ring on the CPU);%n"
          + "                   plain Best when B was not measured%n"
          + "  Heuristic choice what auto picks at that size, and how much slower than the%n"
          + "                   best it measured (+x%% vs best)%n";

  private ReportColumnsHelp() {}
}
