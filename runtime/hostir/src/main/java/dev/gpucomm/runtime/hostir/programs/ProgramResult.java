package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.runtime.hostir.interp.SmPartition;
import java.util.List;

/**
 * Everything a host-IR program workload measured, as every rank ends up with it: the job's
 * report.json carries its headline figures ({@link dev.gpucomm.api.v1alpha1.report.ProgramReport}),
 * program.json all of it (schema {@value #SCHEMA_VERSION}), with every rank's times and validation.
 *
 * <p>Times are the slowest rank's median over {@code iterations} runs timed with device events on
 * the main stream. TFLOP/s count the floating-point operations of one rank; GB/s the bytes one rank
 * receives from the others. The overlap efficiency is how much of the shorter of compute and
 * communication the pipelined program hid: (compute + communication − pipelined) / min(compute,
 * communication); 1 is perfect overlap, 0 none. The ideal speed-up is what the pipelined form would
 * reach over the unpipelined one if it hid its shorter part entirely: unpipelined / max(compute,
 * communication); a speed-up far below it points at the implementation, one close to it at the
 * balance of the program.
 *
 * <p>{@code smPartition} is the split of the GPU's multiprocessors the pipelined run used (null
 * when it shared them all): see {@link SmPartition}.
 */
public record ProgramResult(
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
    FormTimes times,
    double speedup,
    Double idealSpeedup,
    Double overlapEfficiency,
    Double unpipelinedTflops,
    Double pipelinedTflops,
    Double unpipelinedGBps,
    Double pipelinedGBps,
    boolean validated,
    List<String> transports,
    int extraCommunicators,
    int workerStreams,
    SmPartition smPartition,
    List<String> notes,
    List<RankResult> ranks) {
  public static final int SCHEMA_VERSION = 1;

  public ProgramResult {
    passes = List.copyOf(passes);
    transports = List.copyOf(transports);
    notes = List.copyOf(notes);
    ranks = List.copyOf(ranks);
  }
}
