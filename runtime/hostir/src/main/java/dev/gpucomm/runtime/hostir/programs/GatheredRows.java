package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.runtime.hostir.ir.Axis;
import dev.gpucomm.runtime.hostir.ir.FreshNames;
import dev.gpucomm.runtime.hostir.ir.MemoryType;
import dev.gpucomm.runtime.hostir.ir.Tensor;
import java.util.List;

/**
 * A sequence-parallel input X[m, k]: split by rows over the ranks, and all-gathered into a tensor
 * whose outer axis is stream-parallel, so that the all-gather passes can split the gather into one
 * step per rank's chunk. The programs built around an all-gather share it.
 */
record GatheredRows(ProgramSettings settings, int worldSize) {
  /** The counter-value tag of X's elements. */
  static final long TAG = 1;

  long rowsPerRank() {
    return settings.m() / worldSize;
  }

  /** X[D, m/D, k]: this rank's rows. */
  Tensor shard(FreshNames names) {
    return names.tensor(
        settings.dtype(),
        List.of(Axis.device(worldSize), Axis.serial(rowsPerRank()), Axis.serial(settings.k())),
        MemoryType.GLOBAL);
  }

  /** X[stream D, m/D, k]: every rank's rows, one stream-parallel chunk per rank. */
  Tensor gathered(FreshNames names) {
    return names.tensor(
        settings.dtype(),
        List.of(Axis.stream(worldSize), Axis.serial(rowsPerRank()), Axis.serial(settings.k())),
        MemoryType.GLOBAL);
  }

  /** Element {@code localIndex} of {@code rank}'s shard. */
  float shardValue(CounterValues values, int rank, long localIndex) {
    return values.at(TAG, rank * rowsPerRank() * settings.k() + localIndex);
  }

  /** The all-gather brings the other ranks' D − 1 shards to each rank. */
  double bytesReceivedPerRank() {
    return (double) (worldSize - 1)
        / worldSize
        * settings.m()
        * settings.k()
        * settings.dtype().bytes();
  }
}
