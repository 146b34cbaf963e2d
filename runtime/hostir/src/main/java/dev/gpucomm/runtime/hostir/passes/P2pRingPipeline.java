package dev.gpucomm.runtime.hostir.passes;

import dev.gpucomm.api.v1alpha1.CommBackend;
import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.runtime.hostir.ir.Condition;
import dev.gpucomm.runtime.hostir.ir.IfThenElse;
import dev.gpucomm.runtime.hostir.ir.IndexExpr;
import dev.gpucomm.runtime.hostir.ir.P2PCommunication;
import dev.gpucomm.runtime.hostir.ir.ShareMemHandles;
import dev.gpucomm.runtime.hostir.ir.Statement;
import dev.gpucomm.runtime.hostir.ir.Tensor;
import dev.gpucomm.runtime.hostir.ir.Wait;
import java.util.List;
import java.util.function.Function;

/**
 * Decomposes a stream-parallel all-gather (and the matmul reading it) into a ring of point-to-point
 * transfers over IPC, as nvFuser lowers it for its CUDA-IPC backend: at step i rank r gets the
 * chunk of rank (i + r) mod D straight from that rank's memory (the get protocol) while its own
 * chunk is read by rank (D + r − i) mod D. At step 0 the chunk is the rank's own: the matmuls read
 * the input in place, where nvFuser copies it into the gathered tensor first (a copy of the whole
 * chunk that would delay the first matmul, the one every later step overlaps with). The handles of
 * the buffers are exchanged by ShareMemHandles, which caches them, so only the first run pays for
 * the exchange.
 *
 * <p>Its communications always use the IPC backend, whatever the all-gather used: that is the point
 * of the pass. Where a device cannot run the get protocol, the interpreter pairs each send with the
 * recv after it and runs them through the communicator instead, and says so in its transport
 * description.
 */
public final class P2pRingPipeline extends AllgatherDecomposition {
  @Override
  public PassName name() {
    return PassName.P2P_RING_PIPELINE;
  }

  @Override
  IndexExpr chunkIndex(IndexExpr.LoopIndex index, int teamSize) {
    return receivePeer(index, teamSize);
  }

  @Override
  List<Statement> iteration(LoopStep step, Function<Tensor, List<Statement>> matmulsReading) {
    List<Statement> remote = super.iteration(step, matmulsReading);
    return List.of(
        new IfThenElse(
            new Condition(step.sendPeer(), IndexExpr.rank()),
            matmulsReading.apply(step.input()),
            remote));
  }

  /** The get-protocol transfer of a remote chunk (the iterations other than the local one). */
  @Override
  List<Statement> transfer(LoopStep step) {
    P2PCommunication send =
        new P2PCommunication(
            step.names().communication(),
            P2PCommunication.Direction.SEND,
            step.input(),
            step.sendPeer(),
            CommBackend.IPC);
    P2PCommunication recv =
        new P2PCommunication(
            step.names().communication(),
            P2PCommunication.Direction.RECV,
            step.chunk(),
            step.receivePeer(),
            CommBackend.IPC);
    return List.of(
        new ShareMemHandles(List.of(send, recv)),
        send,
        recv,
        new Wait(send.id()),
        new Wait(recv.id()));
  }
}
