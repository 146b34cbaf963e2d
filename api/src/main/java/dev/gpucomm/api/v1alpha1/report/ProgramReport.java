package dev.gpucomm.api.v1alpha1.report;

import dev.gpucomm.api.v1alpha1.DType;
import java.util.List;

/**
 * The result of running one host-IR program (for example a row-parallel linear layer overlapping
 * its matmul chunks with their all-reduces), as rank 0 gathers it. Serialized as report.json with
 * {@code "kind": "program"} (schema {@value #SCHEMA_VERSION}).
 *
 * <p>{@code smPartition} says how the pipelined run split the GPU's multiprocessors between matmuls
 * and communication, e.g. "pipelined run: matmuls on 100 of 132 SMs, communication limited to 32
 * CTAs"; null when it did not (and in reports written before the field existed).
 */
public record ProgramReport(
    int schemaVersion,
    String job,
    String program,
    List<String> passes,
    int worldSize,
    int ranksPerPod,
    String device,
    String deviceName,
    String host,
    String startedAt,
    DType dtype,
    long m,
    long n,
    long k,
    int chunks,
    int streams,
    int iterations,
    ProgramTimes times,
    double maxRelativeError,
    String smPartition)
    implements Report {
  public static final int SCHEMA_VERSION = 1;

  public ProgramReport {
    passes = List.copyOf(passes);
  }
}
