package dev.gpucomm.runtime.hostir.passes;

import dev.gpucomm.api.v1alpha1.CommBackend;
import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.runtime.hostir.ir.Broadcast;
import dev.gpucomm.runtime.hostir.ir.FreshNames;
import dev.gpucomm.runtime.hostir.ir.IndexExpr;
import dev.gpucomm.runtime.hostir.ir.Statement;
import dev.gpucomm.runtime.hostir.ir.Tensor;
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
  List<Statement> transfer(
      IndexExpr.LoopIndex index,
      int teamSize,
      Tensor input,
      Tensor chunk,
      CommBackend backend,
      FreshNames names) {
    int id = names.communication();
    return List.of(new Broadcast(id, input, chunk, index, backend), new Wait(id));
  }
}
