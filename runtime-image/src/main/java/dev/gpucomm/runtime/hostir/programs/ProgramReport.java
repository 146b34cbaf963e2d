package dev.gpucomm.runtime.hostir.programs;

import java.util.List;

/**
 * The result of a host-IR program workload as every rank ends up with it (report.json's {@code
 * program} section, schema {@value #SCHEMA_VERSION}).
 *
 * <p>Times are the slowest rank's median over {@code iterations} runs timed with device events on
 * the main stream. TFLOP/s count the floating-point operations of one rank; GB/s the bytes one rank
 * receives from the others. The overlap efficiency is how much of the shorter of compute and
 * communication the pipelined program hid: (compute + communication − pipelined) / min(compute,
 * communication); 1 is perfect overlap, 0 none.
 */
public record ProgramReport(
    int schemaVersion,
    String program,
    long m,
    long n,
    long k,
    int chunks,
    int streams,
    List<String> passes,
    String dtype,
    String backend,
    int worldSize,
    String device,
    String deviceName,
    int warmupIterations,
    int iterations,
    ProgramTimes times,
    double speedup,
    Double overlapEfficiency,
    Double unpipelinedTflops,
    Double pipelinedTflops,
    Double unpipelinedGBps,
    Double pipelinedGBps,
    boolean validated,
    List<String> transports,
    int extraCommunicators,
    int workerStreams,
    List<String> notes,
    List<RankResult> ranks) {
  public static final int SCHEMA_VERSION = 1;

  public ProgramReport {
    passes = List.copyOf(passes);
    transports = List.copyOf(transports);
    notes = List.copyOf(notes);
    ranks = List.copyOf(ranks);
  }
}
