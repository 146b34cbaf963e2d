package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.runtime.collective.NormEpilogue;
import dev.gpucomm.runtime.numeric.ElementCodec;
import java.lang.foreign.MemorySegment;

/**
 * One-shot and two-shot all-reduce with the residual-add + RMSNorm epilogue fused into the
 * reduction, over the same staging areas and barriers as {@link DirectAlgorithms}.
 *
 * <p>RMSNorm needs a whole token row, so two-shot splits the tensor by rows rather than elements:
 * each rank sums and normalizes its rows, leaves the updated residual over its input rows and the
 * output after the inputs in its own staging area (peers read only their own rows of it), and every
 * rank then gathers both from every rank.
 */
final class FusedDirectAlgorithms {
  private final int rank;
  private final int worldSize;
  private final SharedWorkspace workspace;
  private final FlagBarrier start;
  private final FlagBarrier middle;
  private final FlagBarrier end;
  private final ResidualRmsNormRows rows = new ResidualRmsNormRows();

  FusedDirectAlgorithms(
      int rank,
      int worldSize,
      SharedWorkspace workspace,
      FlagBarrier start,
      FlagBarrier middle,
      FlagBarrier end) {
    this.rank = rank;
    this.worldSize = worldSize;
    this.workspace = workspace;
    this.start = start;
    this.middle = middle;
    this.end = end;
  }

  /** Staging bytes two-shot needs per rank: the inputs, then the outputs. */
  static long twoShotStagingBytes(
      long tokens, NormEpilogue epilogue, ElementCodec codec, int outputElementBytes) {
    return tokens * epilogue.hiddenSize() * (codec.bytes() + (long) outputElementBytes);
  }

  /** Every rank sums and normalizes every row itself. */
  void oneShot(String operation, CpuFusedCall call) {
    ElementCodec codec = call.codec();
    NormEpilogue epilogue = call.epilogue();
    long elements = call.tokens() * epilogue.hiddenSize();
    MemorySegment.copy(call.input(), 0, workspace.staging(rank), 0, elements * codec.bytes());
    start.arriveAndWait(operation);
    for (long row = 0; row < call.tokens(); row++) {
      rows.reduceRow(workspace, worldSize, row, epilogue, codec);
      long first = row * epilogue.hiddenSize();
      rows.normalize(
          row,
          epilogue,
          codec,
          call.residualIn(),
          call.gamma(),
          call.residualOut(),
          first,
          call.output(),
          first);
    }
    end.arriveAndWait(operation);
  }

  /** Each rank sums and normalizes its share of rows (the last takes the remainder). */
  void twoShot(String operation, CpuFusedCall call) {
    ElementCodec codec = call.codec();
    NormEpilogue epilogue = call.epilogue();
    int hidden = epilogue.hiddenSize();
    long tokens = call.tokens();
    long elements = tokens * hidden;
    int outBytes = call.outputElementBytes();
    MemorySegment own = workspace.staging(rank);
    MemorySegment.copy(call.input(), 0, own, 0, elements * codec.bytes());
    start.arriveAndWait(operation);
    long rowsPerRank = tokens / worldSize;
    long myFirstRow = rank * rowsPerRank;
    long myLastRow = rank == worldSize - 1 ? tokens : myFirstRow + rowsPerRank;
    MemorySegment ownOutputs = own.asSlice(elements * codec.bytes());
    for (long row = myFirstRow; row < myLastRow; row++) {
      rows.reduceRow(workspace, worldSize, row, epilogue, codec);
      long first = row * hidden;
      rows.normalize(
          row, epilogue, codec, call.residualIn(), call.gamma(), own, first, ownOutputs, first);
    }
    middle.arriveAndWait(operation);
    for (int owner = 0; owner < worldSize; owner++) {
      long firstRow = owner * rowsPerRank;
      long lastRow = owner == worldSize - 1 ? tokens : firstRow + rowsPerRank;
      long firstElement = firstRow * hidden;
      long ownerElements = (lastRow - firstRow) * hidden;
      MemorySegment staging = workspace.staging(owner);
      MemorySegment.copy(
          staging,
          firstElement * codec.bytes(),
          call.residualOut(),
          firstElement * codec.bytes(),
          ownerElements * codec.bytes());
      MemorySegment.copy(
          staging,
          elements * codec.bytes() + firstElement * outBytes,
          call.output(),
          firstElement * outBytes,
          ownerElements * outBytes);
    }
    end.arriveAndWait(operation);
  }

  /**
   * The unfused sequence for algorithms that do not share memory: the sum, already all-reduced into
   * {@code residualOut}, gets the epilogue row by row in place.
   */
  void normalizeAfterAllReduce(CpuFusedCall call) {
    NormEpilogue epilogue = call.epilogue();
    int hidden = epilogue.hiddenSize();
    for (long row = 0; row < call.tokens(); row++) {
      float[] sums = rows.sums(hidden);
      long first = row * hidden;
      call.codec().load(call.residualOut(), first, sums, 0, hidden);
      rows.normalize(
          row,
          epilogue,
          call.codec(),
          call.residualIn(),
          call.gamma(),
          call.residualOut(),
          first,
          call.output(),
          first);
    }
  }
}
