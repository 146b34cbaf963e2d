package dev.gpucomm.runtime.workload;

import dev.gpucomm.runtime.numeric.Saturating;

/**
 * The memory one rank of a job holds at its largest, before it allocates any, so that a job that
 * cannot fit is refused before it starts. {@link dev.gpucomm.runtime.bench.JobMemory} counts it for
 * each kind of workload.
 *
 * @param what what the memory holds, as a refusal names it, e.g. "the sweep's largest message (64
 *     MiB per rank)"
 * @param deviceBytes device buffers
 * @param hostBytes host buffers (device buffers not included)
 */
public record RankMemory(String what, long deviceBytes, long hostBytes) {
  /** What the rank holds in host memory when its device buffers are host memory too. */
  public long hostBytesWithDevice() {
    return Saturating.sum(hostBytes, deviceBytes);
  }
}
