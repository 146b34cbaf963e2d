package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.BenchmarkSpec;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.FabricSpec;
import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.api.v1alpha1.ProgramSpec;
import dev.gpucomm.api.v1alpha1.Shape;
import dev.gpucomm.api.v1alpha1.TuneSpec;
import dev.gpucomm.api.v1alpha1.Workload;
import dev.gpucomm.runtime.numeric.Saturating;
import dev.gpucomm.runtime.report.HumanUnits;
import java.util.List;
import java.util.Objects;

/**
 * The memory one rank of a job holds at its largest, before it allocates any, so that a job that
 * cannot fit is refused before it starts.
 *
 * <ul>
 *   <li>A benchmark or tune sweep allocates an input and (unless in place) an output buffer on the
 *       device for each point, and the same two on the host to fill and check them: its largest
 *       point is counted. The algorithms' own workspaces are fixed in size and not counted.
 *   <li>A fabric sweep's probe holds two buffers of {@code fabric.bytes} on the device.
 *   <li>A program's operands exist at least once across its ranks, on the device and on the host
 *       (generated there, downloaded to be checked): their bytes over the world size are a lower
 *       bound of what each rank holds, which refuses a shape that cannot fit without guessing at
 *       how the program spreads them.
 * </ul>
 *
 * @param what what the memory holds, as a refusal names it, e.g. "the sweep's largest message (64
 *     MiB per rank)"
 * @param deviceBytes device buffers
 * @param hostBytes host buffers (device buffers not included)
 */
public record RankMemory(String what, long deviceBytes, long hostBytes) {

  /** The memory of one rank of {@code job}. */
  public static RankMemory of(CommJob job) {
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
      case PROGRAM -> program(workload.getProgram(), worldSize);
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

  private static RankMemory program(ProgramSpec program, int worldSize) {
    Shape shape = Objects.requireNonNullElseGet(program.getShape(), Shape::new);
    // A dimension left to the program's default counts as 1: the bound stays a lower one.
    long m = dimension(shape.getM());
    long n = dimension(shape.getN());
    long k = dimension(shape.getK());
    DType dtype = Objects.requireNonNullElse(program.getDtype(), DType.BF16);
    long elements =
        program.getName() == ProgramName.COLLECTIVE_PERMUTE
            ? Saturating.product(m, k) // one m × k tensor, moved between the ranks
            : Saturating.sum(
                Saturating.product(m, k), Saturating.product(k, n), Saturating.product(m, n));
    long total = Saturating.product(elements, dtype.bytes());
    long perRank = total / worldSize;
    return new RankMemory(
        "the program's operands ("
            + HumanUnits.binaryBytes(total)
            + " in all, at least "
            + HumanUnits.binaryBytes(perRank)
            + " per rank of "
            + worldSize
            + ")",
        perRank,
        perRank);
  }

  private static long dimension(Long value) {
    return value == null || value < 1 ? 1 : value;
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
    return Saturating.sum(hostBytes, deviceBytes);
  }
}
