package dev.gpucomm.runtime.hostir.passes;

import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.runtime.hostir.ir.ForLoop;
import dev.gpucomm.runtime.hostir.ir.GetCurrentStream;
import dev.gpucomm.runtime.hostir.ir.IfThenElse;
import dev.gpucomm.runtime.hostir.ir.IndexExpr;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.SetCurrentStream;
import dev.gpucomm.runtime.hostir.ir.Statement;
import dev.gpucomm.runtime.hostir.ir.StreamRef;
import dev.gpucomm.runtime.hostir.ir.Synchronize;
import java.util.ArrayList;
import java.util.List;

/**
 * Spreads the iterations of each stream-parallel loop over {@code streams} worker streams:
 *
 * <pre>
 * GetCurrentStream into Stream main
 * FOR i in istreamIdx{n}:
 *   SetCurrentStream to Stream ( i % S )
 *   Synchronize Stream main
 *   body
 * SetCurrentStream to Stream main
 * FOR i from 0 to min(n, S):
 *   Synchronize Stream i
 * </pre>
 *
 * The worker stream must become current before {@code Synchronize Stream main}: Synchronize makes
 * the <em>current</em> stream wait, and it is the worker that must not start before the work
 * enqueued on main so far (the inputs) is done. The join loop makes main wait for every worker that
 * ran an iteration, so work after the loop sees all chunks. Loops whose streams are already
 * assigned are left alone, so the pass can run twice.
 */
public final class AssignStreams implements Pass {
  static final StreamRef.Named MAIN = StreamRef.named("main");

  private final int streams;

  public AssignStreams(int streams) {
    if (streams < 1) {
      throw new IllegalArgumentException("streams must be at least 1, got " + streams);
    }
    this.streams = streams;
  }

  @Override
  public PassName name() {
    return PassName.ASSIGN_STREAMS;
  }

  @Override
  public Program apply(Program program) {
    return program.withBody(rewrite(program.body()));
  }

  private List<Statement> rewrite(List<Statement> statements) {
    List<Statement> result = new ArrayList<>();
    for (Statement statement : statements) {
      switch (statement) {
        case ForLoop loop when loop.streamParallel() && !assigned(loop) -> {
          result.add(new GetCurrentStream(MAIN));
          List<Statement> body = new ArrayList<>();
          body.add(new SetCurrentStream(StreamRef.worker(loop.index().mod(streams))));
          body.add(new Synchronize(MAIN));
          body.addAll(loop.body());
          result.add(loop.withBody(body));
          result.add(new SetCurrentStream(MAIN));
          result.add(joinLoop(loop));
        }
        case ForLoop loop when !loop.streamParallel() ->
            result.add(loop.withBody(rewrite(loop.body())));
        case IfThenElse branch ->
            result.add(
                new IfThenElse(
                    branch.condition(), rewrite(branch.then()), rewrite(branch.otherwise())));
        default -> result.add(statement);
      }
    }
    return result;
  }

  /** Synchronizes main with each worker stream the loop used, once. */
  private ForLoop joinLoop(ForLoop loop) {
    IndexExpr.LoopIndex index = loop.index();
    if (loop.start() instanceof IndexExpr.Constant(long start)
        && start == 0
        && loop.stop() instanceof IndexExpr.Constant(long stop)) {
      // Iterations 0..stop-1 used streams 0..min(stop, S)-1: one Synchronize each.
      return new ForLoop(
          index,
          loop.start(),
          IndexExpr.constant(Math.min(stop, streams)),
          List.of(new Synchronize(StreamRef.worker(index))),
          false);
    }
    return new ForLoop(
        index,
        loop.start(),
        loop.stop(),
        List.of(new Synchronize(StreamRef.worker(index.mod(streams)))),
        false);
  }

  private static boolean assigned(ForLoop loop) {
    return !loop.body().isEmpty()
        && loop.body().getFirst() instanceof SetCurrentStream(StreamRef.Worker _);
  }
}
