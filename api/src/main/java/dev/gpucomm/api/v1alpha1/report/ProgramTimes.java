package dev.gpucomm.api.v1alpha1.report;

/**
 * Median times of one host-IR program, in milliseconds: the program after its passes (pipelined:
 * matmuls and communication overlap on several streams), the same program without them
 * (unpipelined: one stream), and its matmuls and its communication each run alone; with the
 * pipelined run's matmul throughput.
 */
public record ProgramTimes(
    double pipelinedMillis,
    double unpipelinedMillis,
    double matmulAloneMillis,
    double commAloneMillis,
    double tflops) {

  /** How many times faster the pipelined program ran than the unpipelined one. */
  public double speedup() {
    return unpipelinedMillis / pipelinedMillis;
  }

  /**
   * The time overlap saved: matmul alone plus communication alone, minus the pipelined run (zero
   * when pipelining saved nothing).
   */
  public double overlappedMillis() {
    return Math.max(0, matmulAloneMillis + commAloneMillis - pipelinedMillis);
  }

  /** The share of the communication time that overlap hid, between 0 and 1. */
  public double hiddenCommFraction() {
    return commAloneMillis > 0 ? Math.min(1, overlappedMillis() / commAloneMillis) : 0;
  }
}
