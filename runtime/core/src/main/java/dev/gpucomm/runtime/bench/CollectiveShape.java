package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.report.BusBandwidth;

/**
 * Buffer sizes and bandwidth factors of one collective over a world, for a message of {@code bytes}
 * per rank. The message size is what each rank contributes or receives as one piece: all-reduce and
 * broadcast move a buffer of that size, all-gather and collective permute gather world pieces of
 * it, reduce-scatter reduces world pieces into one.
 *
 * <p>Bandwidths follow nccl-tests: algbw = {@link #algorithmBytes()} / time and busbw = algbw ×
 * {@link #busFactor()}, the factor that makes busbw comparable with the link's speed.
 */
public record CollectiveShape(Collective collective, long bytes, int worldSize) {

  public long inputBytes() {
    return collective == Collective.REDUCESCATTER ? bytes * worldSize : bytes;
  }

  public long outputBytes() {
    return switch (collective) {
      case ALLGATHER, COLLECTIVEPERMUTE -> bytes * worldSize;
      case ALLREDUCE, REDUCESCATTER, BROADCAST -> bytes;
    };
  }

  /** The size nccl-tests divides by the time: the larger of the buffers. */
  public long algorithmBytes() {
    return Math.max(inputBytes(), outputBytes());
  }

  /** nccl-tests' bus factor, the reports' own ({@link BusBandwidth#factor}). */
  public double busFactor() {
    return BusBandwidth.factor(collective, worldSize);
  }

  /** True when the output is a sum (validated within a tolerance), false for pure data movement. */
  public boolean reduces() {
    return collective == Collective.ALLREDUCE || collective == Collective.REDUCESCATTER;
  }
}
