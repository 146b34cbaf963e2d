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
  private static final long TAG_INPUT = 1;
  private static final long TAG_WEIGHT = 2;

  @Override
  public ProgramName name() {
    return ProgramName.COLUMN_PARALLEL_LINEAR;
  }

  @Override
  public Program build() {
    DType dtype = settings.dtype();
    long rowsPerRank = settings.m() / worldSize;
    long n = settings.n();
    long k = settings.k();
    FreshNames names = FreshNames.empty();
    Tensor input =
        names.tensor(
            dtype,
            List.of(Axis.device(worldSize), Axis.serial(rowsPerRank), Axis.serial(k)),
            MemoryType.GLOBAL);
    Tensor weight = names.tensor(dtype, List.of(Axis.serial(k), Axis.serial(n)), MemoryType.GLOBAL);
    Tensor gathered =
        names.tensor(
            dtype,
            List.of(Axis.stream(worldSize), Axis.serial(rowsPerRank), Axis.serial(k)),
            MemoryType.GLOBAL);
    Tensor output =
        names.tensor(
            dtype,
            List.of(
                Axis.stream(worldSize),
                Axis.serial(rowsPerRank),
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
    CounterValues values = values();
    if (input == 0) {
      long rowsPerRank = settings.m() / worldSize;
      return values.at(TAG_INPUT, rank * rowsPerRank * settings.k() + localIndex);
    }
    return values.at(weightTag(rank), localIndex);
  }

  @Override
  public ExactValue expected(int rank, long localIndex) {
    long n = settings.n();
    long k = settings.k();
    long row = localIndex / n;
    long column = localIndex % n;
    CounterValues values = values();
    long weightTag = weightTag(rank);
    double sum = 0;
    double magnitudes = 0;
    for (long inner = 0; inner < k; inner++) {
      double term =
          (double) values.at(TAG_INPUT, row * k + inner) * values.at(weightTag, inner * n + column);
      sum += term;
      magnitudes += Math.abs(term);
    }
    return new ExactValue(sum, magnitudes);
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
    return (double) (worldSize - 1)
        / worldSize
        * settings.m()
        * settings.k()
        * settings.dtype().bytes();
  }

  /** Every rank has its own weight (its column slice of the layer). */
  private static long weightTag(int rank) {
    return TAG_WEIGHT << 32 | rank;
  }

  private CounterValues values() {
    return new CounterValues(settings.name().ordinal(), settings.dtype());
  }
}
