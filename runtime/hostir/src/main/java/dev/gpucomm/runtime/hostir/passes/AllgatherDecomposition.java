package dev.gpucomm.runtime.hostir.passes;

import dev.gpucomm.api.v1alpha1.CommBackend;
import dev.gpucomm.runtime.hostir.ir.Allgather;
import dev.gpucomm.runtime.hostir.ir.Axis;
import dev.gpucomm.runtime.hostir.ir.ForLoop;
import dev.gpucomm.runtime.hostir.ir.FreshNames;
import dev.gpucomm.runtime.hostir.ir.IndexExpr;
import dev.gpucomm.runtime.hostir.ir.Matmul;
import dev.gpucomm.runtime.hostir.ir.MemoryType;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.ShardByStream;
import dev.gpucomm.runtime.hostir.ir.Statement;
import dev.gpucomm.runtime.hostir.ir.Tensor;
import dev.gpucomm.runtime.hostir.ir.Wait;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The common shape of the passes that decompose an all-gather whose output is stream-parallel: the
 * all-gather (and its Wait) becomes a stream-parallel loop over the team, where iteration {@code i}
 * brings one rank's chunk into its slot of the output; the matmuls that read the whole gathered
 * tensor right after it move into the loop and work on that chunk, so that the transfer of one
 * chunk overlaps the matmul of another once streams are assigned.
 *
 * <p>An all-gather qualifies when it is at the top level of the program, its output's outermost
 * allocated axis is a stream axis of extent team size, and the input is one such chunk. A moved
 * matmul must read the gathered tensor as its left operand and write a tensor whose outermost
 * allocated axis is a stream axis of the same extent.
 */
abstract class AllgatherDecomposition implements Pass {

  /** The slot of the gathered tensor that iteration {@code index} fills. */
  abstract IndexExpr chunkIndex(IndexExpr.LoopIndex index, int teamSize);

  /**
   * One iteration of the loop that replaces an all-gather: its index, the team's size, this rank's
   * {@code input} chunk and the {@code chunk} of the output it fills, the all-gather's backend, and
   * the names left for new tensors and communications.
   */
  record LoopStep(
      IndexExpr.LoopIndex index,
      int teamSize,
      Tensor input,
      Tensor chunk,
      CommBackend backend,
      FreshNames names) {

    IndexExpr receivePeer() {
      return AllgatherDecomposition.receivePeer(index, teamSize);
    }

    IndexExpr sendPeer() {
      return AllgatherDecomposition.sendPeer(index, teamSize);
    }
  }

  /** Statements that bring the input of rank {@code chunkIndex} into the step's chunk. */
  abstract List<Statement> transfer(LoopStep step);

  /**
   * The body of an iteration after the chunk's ShardByStream: the transfer into the step's chunk,
   * then the moved matmuls reading it ({@code matmulsReading} gives them for an operand). A pass
   * may let an iteration read another tensor instead.
   */
  List<Statement> iteration(LoopStep step, Function<Tensor, List<Statement>> matmulsReading) {
    List<Statement> statements = new ArrayList<>(transfer(step));
    statements.addAll(matmulsReading.apply(step.chunk()));
    return statements;
  }

  @Override
  public final Program apply(Program program) {
    FreshNames names = FreshNames.after(program);
    List<Statement> body = program.body();
    List<Statement> result = new ArrayList<>();
    int position = 0;
    while (position < body.size()) {
      Statement statement = body.get(position);
      if (statement instanceof Allgather allgather && qualifies(allgather, program.teamSize())) {
        position = decompose(allgather, body, position + 1, program.teamSize(), names, result);
      } else {
        result.add(statement);
        position++;
      }
    }
    return program.withBody(result);
  }

  private static boolean qualifies(Allgather allgather, int teamSize) {
    Tensor output = allgather.output();
    return output.streamParallelOutermost()
        && output.axes().get(output.streamAxis()).extent() == teamSize
        && output.localElements() == allgather.input().localElements() * teamSize;
  }

  /** Appends the loop to {@code result}; returns the position of the first statement not used. */
  private int decompose(
      Allgather allgather,
      List<Statement> body,
      int next,
      int teamSize,
      FreshNames names,
      List<Statement> result) {
    Tensor gathered = allgather.output();
    int position = next;
    boolean waited = false;
    List<Matmul> consumers = new ArrayList<>();
    while (position < body.size()) {
      Statement statement = body.get(position);
      if (!waited && statement instanceof Wait(int id) && id == allgather.id()) {
        waited = true;
      } else if (statement instanceof Matmul matmul && chunkable(matmul, gathered, teamSize)) {
        consumers.add(matmul);
      } else {
        break;
      }
      position++;
    }

    IndexExpr.LoopIndex index = names.loopIndex();
    IndexExpr chunkIndex = chunkIndex(index, teamSize);
    Tensor chunk = shardOf(gathered, names);
    List<Tensor> outChunks = new ArrayList<>();
    for (Matmul matmul : consumers) {
      outChunks.add(shardOf(matmul.out(), names));
    }
    Function<Tensor, List<Statement>> matmulsReading =
        operand -> {
          List<Statement> statements = new ArrayList<>();
          for (int consumer = 0; consumer < consumers.size(); consumer++) {
            Matmul matmul = consumers.get(consumer);
            Tensor outChunk = outChunks.get(consumer);
            statements.add(new ShardByStream(outChunk, matmul.out(), chunkIndex));
            statements.add(new Matmul(outChunk, operand, matmul.b()));
          }
          return statements;
        };
    List<Statement> loopBody = new ArrayList<>();
    loopBody.add(new ShardByStream(chunk, gathered, chunkIndex));
    loopBody.addAll(
        iteration(
            new LoopStep(index, teamSize, allgather.input(), chunk, allgather.backend(), names),
            matmulsReading));
    result.add(
        new ForLoop(index, IndexExpr.constant(0), IndexExpr.constant(teamSize), loopBody, true));
    return position;
  }

  private static boolean chunkable(Matmul matmul, Tensor gathered, int teamSize) {
    Tensor out = matmul.out();
    return matmul.a().equals(gathered)
        && !matmul.b().equals(gathered)
        && out.streamParallelOutermost()
        && out.axes().get(out.streamAxis()).extent() == teamSize;
  }

  /** A local tensor shaped like one chunk of {@code tensor} along its stream axis. */
  static Tensor shardOf(Tensor tensor, FreshNames names) {
    List<Axis> axes = new ArrayList<>(tensor.axes());
    axes.remove(tensor.streamAxis());
    return names.tensor(tensor.dtype(), axes, MemoryType.LOCAL);
  }

  /** {@code (i + rank) mod D}: the chunk a rank receives at step i, and the rank it comes from. */
  static IndexExpr receivePeer(IndexExpr.LoopIndex index, int teamSize) {
    return index.plus(IndexExpr.rank()).mod(teamSize);
  }

  /** {@code (D + rank − i) mod D}: the rank this rank sends its own chunk to at step i. */
  static IndexExpr sendPeer(IndexExpr.LoopIndex index, int teamSize) {
    return IndexExpr.constant(teamSize).plus(IndexExpr.rank().minus(index)).mod(teamSize);
  }
}
