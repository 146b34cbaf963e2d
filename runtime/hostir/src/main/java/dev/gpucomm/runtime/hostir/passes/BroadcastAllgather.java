package dev.gpucomm.runtime.hostir.passes;

import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.runtime.hostir.ir.Broadcast;
import dev.gpucomm.runtime.hostir.ir.IndexExpr;
import dev.gpucomm.runtime.hostir.ir.Statement;
import dev.gpucomm.runtime.hostir.ir.Wait;
import java.util.List;

/**
 * Decomposes a stream-parallel all-gather into one broadcast per iteration: at step i rank i
 * broadcasts its chunk into slot i of every rank's output.
 */
public final class BroadcastAllgather extends AllgatherDecomposition {
  @Override
  public PassName name() {
    return PassName.BROADCAST_ALLGATHER;
  }

  @Override
  IndexExpr chunkIndex(IndexExpr.LoopIndex index, int teamSize) {
    return index;
  }

  @Override
  List<Statement> transfer(LoopStep step) {
    int id = step.names().communication();
    return List.of(
        new Broadcast(id, step.input(), step.chunk(), step.index(), step.backend()), new Wait(id));
  }
}
