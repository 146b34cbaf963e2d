package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.runtime.hostir.ir.Allgather;
import dev.gpucomm.runtime.hostir.ir.Allocate;
import dev.gpucomm.runtime.hostir.ir.FreshNames;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.Tensor;
import dev.gpucomm.runtime.hostir.ir.Wait;
import java.util.List;

/**
 * nvFuser's collective-permute test program: X[m, k] split by rows over D ranks is gathered into a
 * tensor whose outer axis is stream-parallel, so that collectivePermuteAllgather turns the
 * all-gather into D − 1 send/recv steps and a local copy. Every rank ends with all of X.
 */
public record CollectivePermuteProgram(ProgramSettings settings, int worldSize)
    implements HostProgram {
  @Override
  public ProgramName name() {
    return ProgramName.COLLECTIVE_PERMUTE;
  }

  @Override
  public Program build() {
    GatheredRows rows = new GatheredRows(settings, worldSize);
    FreshNames names = FreshNames.empty();
    Tensor input = rows.shard(names);
    Tensor output = rows.gathered(names);
    int allgather = names.communication();
    return new Program(
        worldSize,
        List.of(input),
        List.of(output),
        List.of(
            new Allocate(output),
            new Allgather(allgather, input, output, settings.backend()),
            new Wait(allgather)));
  }

  @Override
  public float input(int input, int rank, long localIndex) {
    return new GatheredRows(settings, worldSize)
        .shardValue(CounterValues.of(settings), rank, localIndex);
  }

  @Override
  public ExactValue expected(int rank, long localIndex) {
    double value = CounterValues.of(settings).at(GatheredRows.TAG, localIndex);
    return new ExactValue(value, Math.abs(value));
  }

  @Override
  public ErrorBound errorBound() {
    return ErrorBound.exact(settings.dtype());
  }

  @Override
  public double magnitudeSumBound() {
    return 1;
  }

  @Override
  public int chunks() {
    return worldSize;
  }

  @Override
  public double flopsPerRank() {
    return 0;
  }

  @Override
  public double bytesReceivedPerRank() {
    return new GatheredRows(settings, worldSize).bytesReceivedPerRank();
  }
}
