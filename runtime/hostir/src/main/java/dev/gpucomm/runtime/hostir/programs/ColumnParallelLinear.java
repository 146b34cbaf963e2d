package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.runtime.hostir.ir.Allgather;
import dev.gpucomm.runtime.hostir.ir.Allocate;
import dev.gpucomm.runtime.hostir.ir.Axis;
import dev.gpucomm.runtime.hostir.ir.FreshNames;
import dev.gpucomm.runtime.hostir.ir.Matmul;
import dev.gpucomm.runtime.hostir.ir.MemoryType;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.Tensor;
import dev.gpucomm.runtime.hostir.ir.Wait;
import java.util.List;

/**
 * The forward pass of a column-parallel linear layer with a sequence-parallel input (nvFuser's
 * all-gather + matmul overlap): A[M, K] is split by rows over D ranks, each rank holds its own
 * weight B[K, N] (its column slice of the layer) and computes C = A·B over all of A. Without passes
 * it is an all-gather of A followed by one matmul; the all-gather passes turn it into a loop over
 * the D chunks of A in which the transfer of one chunk overlaps the matmul of another.
 */
public record ColumnParallelLinear(ProgramSettings settings, int worldSize) implements HostProgram {
  private static final long TAG_WEIGHT = 2;

  @Override
  public ProgramName name() {
    return ProgramName.COLUMN_PARALLEL_LINEAR;
  }

  @Override
  public Program build() {
    DType dtype = settings.dtype();
    GatheredRows rows = new GatheredRows(settings, worldSize);
    long n = settings.n();
    long k = settings.k();
    FreshNames names = FreshNames.empty();
    Tensor input = rows.shard(names);
    Tensor weight = names.tensor(dtype, List.of(Axis.serial(k), Axis.serial(n)), MemoryType.GLOBAL);
    Tensor gathered = rows.gathered(names);
    Tensor output =
        names.tensor(
            dtype,
            List.of(
                Axis.stream(worldSize),
                Axis.serial(rows.rowsPerRank()),
                Axis.serial(n),
                Axis.reducedSerial(k)),
            MemoryType.GLOBAL);
    int allgather = names.communication();
    return new Program(
        worldSize,
        List.of(input, weight),
        List.of(output),
        List.of(
            new Allocate(gathered),
            new Allocate(output),
            new Allgather(allgather, input, gathered, settings.backend()),
            new Wait(allgather),
            new Matmul(output, gathered, weight)));
  }

  @Override
  public float input(int input, int rank, long localIndex) {
    CounterValues values = CounterValues.of(settings);
    if (input == 0) {
      return new GatheredRows(settings, worldSize).shardValue(values, rank, localIndex);
    }
    return values.at(weightTag(rank), localIndex);
  }

  @Override
  public ExactValue expected(int rank, long localIndex) {
    long n = settings.n();
    return CounterValues.of(settings)
        .productElement(
            GatheredRows.TAG, weightTag(rank), localIndex / n, localIndex % n, settings.k(), n);
  }

  @Override
  public ErrorBound errorBound() {
    return new ErrorBound(settings.dtype(), settings.k(), 0);
  }

  @Override
  public double magnitudeSumBound() {
    return MagnitudeSums.uniformDotProduct(settings.k());
  }

  @Override
  public int chunks() {
    return worldSize;
  }

  @Override
  public double flopsPerRank() {
    return 2.0 * settings.m() * settings.n() * settings.k();
  }

  @Override
  public double bytesReceivedPerRank() {
    return new GatheredRows(settings, worldSize).bytesReceivedPerRank();
  }

  /** Every rank has its own weight (its column slice of the layer). */
  private static long weightTag(int rank) {
    return TAG_WEIGHT << 32 | rank;
  }
}
