package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.BenchmarkSpec;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.TuneSpec;
import dev.gpucomm.api.v1alpha1.Workload;
import java.util.List;
import java.util.Optional;

/**
 * The memory one rank of a sweep holds at its largest point, before it allocates any: the sweep
 * allocates an input and (unless in place) an output buffer on the device for each point, and the
 * same two on the host to fill and check them. The algorithms' own workspaces are fixed in size and
 * not counted.
 *
 * @param largestMessageBytes the sweep's largest message per rank
 * @param deviceBytes device buffers at that point
 * @param hostBytes host buffers at that point (device buffers not included)
 */
public record RankMemory(long largestMessageBytes, long deviceBytes, long hostBytes) {

  /**
   * The memory of a benchmark or tune job's rank; empty for a program or a fabric sweep, whose
   * buffers are fixed in size by their specs.
   */
  public static Optional<RankMemory> of(CommJob job) {
    Workload workload = job.getSpec().getWorkload();
    int worldSize = job.getSpec().getWorldSize();
    return switch (workload.getKind()) {
      case BENCHMARK -> {
        BenchmarkSpec benchmark = workload.getBenchmark();
        yield Optional.of(
            of(
                benchmark.getCollective(),
                largest(
                    benchmark.getTokens(),
                    benchmark.getSizes(),
                    benchmark.getHiddenSize(),
                    benchmark.getDtype()),
                worldSize,
                Boolean.TRUE.equals(benchmark.getInPlace())));
      }
      case TUNE -> {
        TuneSpec tune = workload.getTune();
        yield Optional.of(
            of(
                tune.getCollective(),
                largest(tune.getTokens(), tune.getSizes(), tune.getHiddenSize(), tune.getDtype()),
                worldSize,
                false));
      }
      case PROGRAM, FABRIC -> Optional.empty();
    };
  }

  static RankMemory of(Collective collective, long messageBytes, int worldSize, boolean inPlace) {
    CollectiveShape shape = new CollectiveShape(collective, messageBytes, worldSize);
    long device = shape.inputBytes() + (inPlace ? 0 : shape.outputBytes());
    long host = shape.inputBytes() + shape.outputBytes();
    return new RankMemory(messageBytes, device, host);
  }

  private static long largest(List<Integer> tokens, List<Long> sizes, Integer hidden, DType type) {
    long largest = 0;
    if (tokens != null) {
      for (Integer count : tokens) {
        largest = Math.max(largest, (long) count * hidden * type.bytes());
      }
    }
    if (sizes != null) {
      for (Long bytes : sizes) {
        largest = Math.max(largest, bytes);
      }
    }
    return largest;
  }

  /** What the rank holds in host memory when its device buffers are host memory too. */
  public long hostBytesWithDevice() {
    return hostBytes + deviceBytes;
  }
}
