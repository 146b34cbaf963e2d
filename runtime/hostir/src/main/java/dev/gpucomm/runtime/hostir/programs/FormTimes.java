package dev.gpucomm.runtime.hostir.programs;

/**
 * Median times in milliseconds of one program's forms: without passes, with them, and the pipelined
 * program's compute alone and communication alone (its time split).
 */
public record FormTimes(
    double unpipelinedMillis,
    double pipelinedMillis,
    double computeOnlyMillis,
    double communicationOnlyMillis) {

  /** Each time the largest of {@code this} and {@code other}: the slowest rank sets the pace. */
  public FormTimes slowest(FormTimes other) {
    return new FormTimes(
        Math.max(unpipelinedMillis, other.unpipelinedMillis),
        Math.max(pipelinedMillis, other.pipelinedMillis),
        Math.max(computeOnlyMillis, other.computeOnlyMillis),
        Math.max(communicationOnlyMillis, other.communicationOnlyMillis));
  }
}
