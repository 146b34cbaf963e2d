package dev.gpucomm.runtime.hostir.passes;

import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.runtime.hostir.ir.CollectivePermute;
import dev.gpucomm.runtime.hostir.ir.IndexExpr;
import dev.gpucomm.runtime.hostir.ir.Statement;
import dev.gpucomm.runtime.hostir.ir.Wait;
import java.util.List;

/**
 * Decomposes a stream-parallel all-gather into one collective permute per iteration (nvFuser's
 * Swizzle1D): at step i rank r fills slot (i + r) mod D with the chunk received from rank (i + r)
 * mod D and sends its own chunk to rank (D + r − i) mod D. Step 0 sends to and receives from the
 * rank itself, a local copy, so each rank makes D − 1 send/recv pairs in all.
 */
public final class CollectivePermuteAllgather extends AllgatherDecomposition {
  @Override
  public PassName name() {
    return PassName.COLLECTIVE_PERMUTE_ALLGATHER;
  }

  @Override
  IndexExpr chunkIndex(IndexExpr.LoopIndex index, int teamSize) {
    return receivePeer(index, teamSize);
  }

  @Override
  List<Statement> transfer(LoopStep step) {
    int id = step.names().communication();
    return List.of(
        new CollectivePermute(
            id, step.input(), step.chunk(), step.sendPeer(), step.receivePeer(), step.backend()),
        new Wait(id));
  }
}
