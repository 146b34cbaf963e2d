package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.BenchmarkSpec;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.FabricSpec;
import dev.gpucomm.api.v1alpha1.TuneSpec;
import dev.gpucomm.api.v1alpha1.Workload;
import dev.gpucomm.runtime.numeric.Saturating;
import dev.gpucomm.runtime.report.HumanUnits;
import dev.gpucomm.runtime.workload.ProgramWorkload;
import dev.gpucomm.runtime.workload.RankMemory;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Counts the memory ({@link RankMemory}) one rank of a job holds at its largest:
 *
 * <ul>
 *   <li>A benchmark or tune sweep allocates an input and (unless in place) an output buffer on the
 *       device for each point, and the same two on the host to fill and check them: its largest
 *       point is counted. The algorithms' own workspaces are fixed in size and not counted.
 *   <li>A fabric sweep's probe holds two buffers of {@code fabric.bytes} on the device.
 *   <li>A program's buffers are read from the programs it will run, by the host-IR module that runs
 *       them ({@link ProgramWorkload#memory}).
 * </ul>
 */
public final class JobMemory {
  private JobMemory() {}

  /**
   * The memory of one rank of {@code job} on {@code device}.
   *
   * @throws dev.gpucomm.runtime.UsageException when a program spec cannot run, naming the field
   */
  public static RankMemory of(CommJob job, DeviceKind device) {
    Workload workload = job.getSpec().getWorkload();
    int worldSize = job.getSpec().getWorldSize();
    return switch (workload.getKind()) {
      case BENCHMARK -> {
        BenchmarkSpec benchmark = workload.getBenchmark();
        yield of(
            benchmark.getCollective(),
            largest(
                benchmark.getTokens(),
                benchmark.getSizes(),
                benchmark.getHiddenSize(),
                benchmark.getDtype()),
            worldSize,
            Boolean.TRUE.equals(benchmark.getInPlace()));
      }
      case TUNE -> {
        TuneSpec tune = workload.getTune();
        yield of(
            tune.getCollective(),
            largest(tune.getTokens(), tune.getSizes(), tune.getHiddenSize(), tune.getDtype()),
            worldSize,
            false);
      }
      case FABRIC -> fabric(workload.getFabric());
      case PROGRAM -> program(job, device);
    };
  }

  static RankMemory of(Collective collective, long messageBytes, int worldSize, boolean inPlace) {
    CollectiveShape shape = new CollectiveShape(collective, messageBytes, worldSize);
    long device = shape.inputBytes() + (inPlace ? 0 : shape.outputBytes());
    long host = shape.inputBytes() + shape.outputBytes();
    return new RankMemory(
        "the sweep's largest message (" + HumanUnits.binaryBytes(messageBytes) + " per rank)",
        device,
        host);
  }

  private static RankMemory fabric(FabricSpec fabric) {
    long bytes =
        fabric == null || fabric.getBytes() == null
            ? CommJobDefaults.FABRIC_BYTES
            : fabric.getBytes();
    return new RankMemory(
        "the fabric probe's two buffers of " + HumanUnits.binaryBytes(bytes),
        Saturating.product(2, bytes),
        0);
  }

  private static RankMemory program(CommJob job, DeviceKind device) {
    // without the host-IR module the rank refuses the job itself, naming the module
    return ServiceLoader.load(ProgramWorkload.class)
        .findFirst()
        .map(programs -> programs.memory(job, device))
        .orElseGet(() -> new RankMemory("no program (this build runs none)", 0, 0));
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
}
