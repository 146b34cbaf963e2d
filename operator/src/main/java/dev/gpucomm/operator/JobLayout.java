package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import java.util.Objects;

/**
 * The shape of a job as the operator reads it: its spec with the CRD's defaults filled in where a
 * field is absent (an API server applies them at admission; reading them here keeps the operator
 * correct where defaulting did not happen, such as a CRD installed without its schema).
 */
public record JobLayout(
    int worldSize,
    int ranksPerPod,
    DeviceKind device,
    int timeoutSeconds,
    String sharedMemorySize) {
  public static final int DEFAULT_TIMEOUT_SECONDS = 900;

  /** Reads a spec that {@link SpecValidator} accepted. */
  public static JobLayout of(CommJobSpec spec, String defaultSharedMemorySize) {
    return new JobLayout(
        spec.getWorldSize(),
        Objects.requireNonNullElse(spec.getRanksPerPod(), CommJobDefaults.RANKS_PER_POD),
        Objects.requireNonNullElse(spec.getDevice(), DeviceKind.CUDA),
        Objects.requireNonNullElse(spec.getTimeoutSeconds(), DEFAULT_TIMEOUT_SECONDS),
        Objects.requireNonNullElse(spec.getSharedMemorySize(), defaultSharedMemorySize));
  }

  public int podCount() {
    return worldSize / ranksPerPod;
  }

  /** First global rank of a pod. */
  public int firstRank(int podIndex) {
    return podIndex * ranksPerPod;
  }

  /** Global ranks of a pod, for messages: "rank 3" or "ranks 4-7". */
  public String ranksOf(int podIndex) {
    int first = firstRank(podIndex);
    return ranksPerPod == 1 ? "rank " + first : "ranks " + first + "-" + (first + ranksPerPod - 1);
  }
}
