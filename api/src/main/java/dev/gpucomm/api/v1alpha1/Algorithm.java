package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.Optional;

/**
 * Collective algorithms; auto asks the job's heuristic. Hierarchical is an all-reduce for jobs that
 * span pods: reduce-scatter inside the pod, all-reduce of each shard across pods among the ranks
 * with the same local rank, all-gather inside the pod. Copyengine is an all-gather or
 * reduce-scatter among the ranks of one node whose bytes the GPUs' copy engines move through peer
 * memory (no multiprocessors carry them, so it overlaps with compute); oneshot names the same
 * collectives pushed by kernel threads.
 */
public enum Algorithm {
  @JsonProperty("auto")
  AUTO("auto"),
  @JsonProperty("nccl")
  NCCL("nccl"),
  @JsonProperty("oneshot")
  ONESHOT("oneshot"),
  @JsonProperty("twoshot")
  TWOSHOT("twoshot"),
  @JsonProperty("ring")
  RING("ring"),
  @JsonProperty("hierarchical")
  HIERARCHICAL("hierarchical"),
  @JsonProperty("copyengine")
  COPYENGINE("copyengine");

  private final String wireName;

  Algorithm(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in YAML, JSON and on the command line. */
  public String wireName() {
    return wireName;
  }

  /**
   * Whether a benchmark may ask for this algorithm with {@code inPlace} (the output over the
   * input): NCCL and the CPU ring read every part of the input in their reduce-scatter before their
   * all-gather writes it, and auto chooses among them. The peer-memory kernels do not order a
   * rank's own sends before its output writes (the Lamport one-shot sends and reduces in different
   * threads), so they always take a separate output.
   */
  public boolean mayRunInPlace() {
    return this == AUTO || this == NCCL || this == RING || this == HIERARCHICAL;
  }

  /** The constant whose wire name is {@code text}, if any. */
  public static Optional<Algorithm> fromWireName(String text) {
    return Arrays.stream(values()).filter(v -> v.wireName.equals(text)).findFirst();
  }

  /** All wire names, for error messages. */
  public static String wireNames() {
    return String.join(", ", Arrays.stream(values()).map(Algorithm::wireName).toList());
  }

  @Override
  public String toString() {
    return wireName;
  }
}
