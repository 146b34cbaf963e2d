package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.runtime.hostir.ir.AllReduce;
import dev.gpucomm.runtime.hostir.ir.Allocate;
import dev.gpucomm.runtime.hostir.ir.Axis;
import dev.gpucomm.runtime.hostir.ir.ForLoop;
import dev.gpucomm.runtime.hostir.ir.FreshNames;
import dev.gpucomm.runtime.hostir.ir.IndexExpr;
import dev.gpucomm.runtime.hostir.ir.Matmul;
import dev.gpucomm.runtime.hostir.ir.MemoryType;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.ShardByStream;
import dev.gpucomm.runtime.hostir.ir.Tensor;
import dev.gpucomm.runtime.hostir.ir.Wait;
import java.util.List;

/**
 * The forward pass of a row-parallel linear layer (nvFuser's RowParallelLinear_Forward): the input
 * X[t, h] and the weight W[h, h'] are split along h over D ranks; per chunk of t/s tokens each rank
 * multiplies its slices and the partial products are all-reduced, so that every rank ends with C =
 * X·W. Shape: m = t tokens, k = h, n = h'. Without passes the chunks run one after another on one
 * stream; assignStreams lets the all-reduce of one chunk overlap the matmul of the next.
 */
public record RowParallelLinear(ProgramSettings settings, int worldSize) implements HostProgram {
  private static final long TAG_INPUT = 1;
  private static final long TAG_WEIGHT = 2;

  @Override
  public ProgramName name() {
    return ProgramName.ROW_PARALLEL_LINEAR;
  }

  @Override
  public Program build() {
    DType dtype = settings.dtype();
    long m = settings.m();
    long n = settings.n();
    long kPerRank = settings.k() / worldSize;
    int chunks = settings.chunks();
    FreshNames names = FreshNames.empty();
    Tensor input =
        names.tensor(
            dtype,
            List.of(
                Axis.stream(chunks),
                Axis.serial(m / chunks),
                Axis.device(worldSize),
                Axis.serial(kPerRank)),
            MemoryType.GLOBAL);
    Tensor weight =
        names.tensor(
            dtype,
            List.of(Axis.device(worldSize), Axis.serial(kPerRank), Axis.serial(n)),
            MemoryType.GLOBAL);
    Tensor output =
        names.tensor(
            dtype,
            List.of(
                Axis.stream(chunks),
                Axis.serial(m / chunks),
                Axis.reducedDevice(worldSize),
                Axis.serial(n)),
            MemoryType.GLOBAL);
    IndexExpr.LoopIndex i = names.loopIndex();
    Tensor inputChunk =
        names.tensor(
            dtype,
            List.of(Axis.serial(m / chunks), Axis.device(worldSize), Axis.serial(kPerRank)),
            MemoryType.LOCAL);
    Tensor partial =
        names.tensor(
            dtype,
            List.of(
                Axis.serial(m / chunks),
                Axis.device(worldSize),
                Axis.serial(n),
                Axis.reducedSerial(kPerRank)),
            MemoryType.GLOBAL);
    Tensor outputChunk =
        names.tensor(
            dtype,
            List.of(Axis.serial(m / chunks), Axis.reducedDevice(worldSize), Axis.serial(n)),
            MemoryType.LOCAL);
    int allReduce = names.communication();
    ForLoop loop =
        new ForLoop(
            i,
            IndexExpr.constant(0),
            IndexExpr.constant(chunks),
            List.of(
                new ShardByStream(inputChunk, input, i),
                new Allocate(partial),
                new Matmul(partial, inputChunk, weight),
                new ShardByStream(outputChunk, output, i),
                new AllReduce(allReduce, partial, outputChunk, settings.backend()),
                new Wait(allReduce)),
            true);
    return new Program(
        worldSize, List.of(input, weight), List.of(output), List.of(new Allocate(output), loop));
  }

  @Override
  public float input(int input, int rank, long localIndex) {
    long k = settings.k();
    long kPerRank = k / worldSize;
    CounterValues values = CounterValues.of(settings);
    if (input == 0) {
      long row = localIndex / kPerRank;
      long column = rank * kPerRank + localIndex % kPerRank;
      return values.at(TAG_INPUT, row * k + column);
    }
    long row = rank * kPerRank + localIndex / settings.n();
    return values.at(TAG_WEIGHT, row * settings.n() + localIndex % settings.n());
  }

  @Override
  public ExactValue expected(int rank, long localIndex) {
    long n = settings.n();
    return CounterValues.of(settings)
        .productElement(TAG_INPUT, TAG_WEIGHT, localIndex / n, localIndex % n, settings.k(), n);
  }

  @Override
  public ErrorBound errorBound() {
    // Each rank's partial product is rounded to the dtype, and a ring all-reduce may round the
    // running sum at each of its D - 1 hops.
    return new ErrorBound(settings.dtype(), settings.k() / worldSize + worldSize - 1L, worldSize);
  }

  @Override
  public double magnitudeSumBound() {
    return MagnitudeSums.uniformDotProduct(settings.k());
  }

  @Override
  public int chunks() {
    return settings.chunks();
  }

  @Override
  public double flopsPerRank() {
    return 2.0 * settings.m() * settings.n() * (settings.k() / worldSize);
  }

  @Override
  public double bytesReceivedPerRank() {
    // An all-reduce moves 2 (D - 1) / D of the buffer into each rank (ring algorithm).
    return 2.0
        * (worldSize - 1)
        / worldSize
        * settings.m()
        * settings.n()
        * settings.dtype().bytes();
  }
}
