package dev.gpucomm.api.v1alpha1.report;

import dev.gpucomm.api.v1alpha1.Collective;

/**
 * Bandwidths as nccl-tests defines them: algbw = size / time, busbw = algbw × a factor per
 * collective that makes busbw comparable to the hardware's link bandwidth whatever the world size.
 * The size is nccl-tests' size: the per-rank buffer for all-reduce and broadcast, the whole
 * gathered buffer for all-gather and for collective permute (an all-gather made of permute steps:
 * each rank ends with every rank's piece) and the whole input for reduce-scatter.
 */
public final class BusBandwidth {
  private BusBandwidth() {}

  /**
   * nccl-tests' bus factor: all-reduce 2(n−1)/n; all-gather, reduce-scatter and collective permute
   * (which moves what an all-gather does) (n−1)/n; broadcast 1.
   */
  public static double factor(Collective collective, int worldSize) {
    if (worldSize < 1) {
      throw new IllegalArgumentException("worldSize must be at least 1, got " + worldSize);
    }
    double ranks = worldSize;
    return switch (collective) {
      case ALLREDUCE -> 2 * (ranks - 1) / ranks;
      case ALLGATHER, REDUCESCATTER, COLLECTIVEPERMUTE -> (ranks - 1) / ranks;
      case BROADCAST -> 1;
    };
  }

  /**
   * nccl-tests' size for a message of {@code bytesPerRank} (what each rank contributes or receives
   * as one piece, as reports record sizes): the gathered output of an all-gather or a collective
   * permute, the whole input of a reduce-scatter, the per-rank buffer otherwise.
   */
  public static long ncclTestsBytes(Collective collective, int worldSize, long bytesPerRank) {
    return switch (collective) {
      case ALLGATHER, REDUCESCATTER, COLLECTIVEPERMUTE -> bytesPerRank * worldSize;
      case ALLREDUCE, BROADCAST -> bytesPerRank;
    };
  }

  /** busbw in GB/s of a message of {@code bytesPerRank} (a report's size) that took micros. */
  public static double busBandwidthOfMessage(
      Collective collective, int worldSize, long bytesPerRank, double micros) {
    return busBandwidthGBps(
        collective, worldSize, ncclTestsBytes(collective, worldSize, bytesPerRank), micros);
  }

  /** algbw in GB/s (10^9 bytes per second) for {@code bytes} moved in {@code micros}. */
  public static double algBandwidthGBps(long bytes, double micros) {
    return bytes / (micros * 1e3);
  }

  /** busbw in GB/s: algbw × {@link #factor}. */
  public static double busBandwidthGBps(
      Collective collective, int worldSize, long bytes, double micros) {
    return algBandwidthGBps(bytes, micros) * factor(collective, worldSize);
  }
}
