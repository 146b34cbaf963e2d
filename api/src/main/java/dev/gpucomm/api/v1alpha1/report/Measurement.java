package dev.gpucomm.api.v1alpha1.report;

import dev.gpucomm.api.v1alpha1.Algorithm;

/**
 * Validated timings of one algorithm at one size: medians over {@code iterations} timed calls,
 * eager (one launch per call) and, where measured, replayed from a CUDA graph (null otherwise).
 * Bandwidths follow nccl-tests: algbw = bytes / time, busbw = algbw × the collective's factor.
 */
public record Measurement(
    Algorithm algorithm,
    double eagerMicros,
    Double graphMicros,
    double algBandwidthGBps,
    double busBandwidthGBps,
    double maxRelativeError,
    int iterations) {

  /** The time the report ranks algorithms by: graph replay when measured, else eager. */
  public double bestMicros() {
    return TimeBasis.GRAPH_WHERE_MEASURED.micros(this);
  }
}
