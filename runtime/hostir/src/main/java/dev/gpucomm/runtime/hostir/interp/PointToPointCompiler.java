package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.api.v1alpha1.CommBackend;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.ShareableBuffer;
import dev.gpucomm.runtime.hostir.ir.P2PCommunication;
import dev.gpucomm.runtime.hostir.ir.ShareMemHandles;
import java.util.ArrayList;
import java.util.List;

/**
 * Compiles point-to-point transfers, their handle exchanges and coalescing groups. With stream
 * memory operations, IPC transfers run the get protocol of {@link IpcGetProtocol}; everything else
 * pairs a send with the recv next to it (or the sends and recvs of a coalescing group, in order)
 * and posts each pair as one {@link dev.gpucomm.runtime.collective.Communicator#sendReceive} step.
 */
final class PointToPointCompiler {
  private final CompileContext context;
  private final List<PendingTransfer> pendingTransfers = new ArrayList<>();
  private Coalescing coalescing;

  PointToPointCompiler(CompileContext context) {
    this.context = context;
  }

  /** A send or recv waiting for its other half before both are posted as one step. */
  private record PendingTransfer(
      P2PCommunication communication, PostRecord record, DeviceBuffer buffer, int peer) {}

  private Coalescing coalescing() {
    if (coalescing == null) {
      coalescing = new Coalescing();
    }
    return coalescing;
  }

  /** The sends and recvs between StartCoalescing and EndCoalescing, posted in pairs at the end. */
  private final class Coalescing {
    boolean open;

    void start() {
      if (open) {
        throw new IllegalStateException("StartCoalescing inside a coalescing group");
      }
      if (!pendingTransfers.isEmpty()) {
        throw new IllegalStateException(
            "StartCoalescing while communication "
                + pendingTransfers.getFirst().communication().id()
                + " waits for the other half of its send/recv pair");
      }
      open = true;
    }

    void end(ExecutionState s) {
      if (!open) {
        throw new IllegalStateException("EndCoalescing without StartCoalescing");
      }
      open = false;
      List<PendingTransfer> sends = new ArrayList<>();
      List<PendingTransfer> recvs = new ArrayList<>();
      for (PendingTransfer transfer : pendingTransfers) {
        (transfer.communication().direction() == P2PCommunication.Direction.SEND ? sends : recvs)
            .add(transfer);
      }
      pendingTransfers.clear();
      if (sends.size() != recvs.size()) {
        throw new IllegalStateException(
            "a coalescing group of "
                + sends.size()
                + " sends and "
                + recvs.size()
                + " recvs cannot be posted as send/recv pairs");
      }
      for (int index = 0; index < sends.size(); index++) {
        postPair(sends.get(index), recvs.get(index), s);
      }
    }
  }

  private void postPair(PendingTransfer send, PendingTransfer recv, ExecutionState s) {
    long bytes = send.buffer().byteSize();
    if (recv.buffer().byteSize() != bytes) {
      throw new IllegalStateException(
          "send "
              + send.communication().id()
              + " of "
              + bytes
              + " bytes is paired with recv "
              + recv.communication().id()
              + " of "
              + recv.buffer().byteSize());
    }
    context
        .communicator(s)
        .sendReceive(
            send.buffer(), send.peer(), recv.buffer(), recv.peer(), bytes, s.current.stream());
    send.record().posted(s);
    recv.record().posted(s);
  }

  /** One half of a transfer. */
  Step transfer(P2PCommunication p2p, PostRecord record, CompileScope scope) {
    int buffer = p2p.buffer().id();
    String bufferName = p2p.buffer().name();
    CompiledIndex peer = CompiledIndex.of(p2p.peer(), scope.slots);
    boolean send = p2p.direction() == P2PCommunication.Direction.SEND;
    if (context.analysis().overIpc(p2p)) {
      context.transports().add("P2P: ipc get protocol (stream memory operations on semaphores)");
      int channel = context.analysis().channelOf.get(p2p.id());
      return s -> {
        int peerRank = context.checkedRank(peer.value(s), "peer");
        record.peer = peerRank;
        if (send) {
          context.ipc().postSend(channel, peerRank, s.current.stream());
        } else {
          context
              .ipc()
              .postRecv(channel, peerRank, s.tensor(buffer, bufferName), s.current.stream());
        }
        record.posted(s);
      };
    }
    context
        .transports()
        .add(
            "P2P: communicator sendReceive pairs ("
                + p2p.backend().wireName()
                + " backend"
                + (p2p.backend() == CommBackend.IPC
                    ? "; this device has no stream memory operations for the IPC get protocol"
                    : "")
                + ")");
    return s -> {
      int peerRank = context.checkedRank(peer.value(s), "peer");
      record.peer = peerRank;
      record.pending = true;
      PendingTransfer transfer =
          new PendingTransfer(p2p, record, s.tensor(buffer, bufferName), peerRank);
      if (coalescing != null && coalescing.open) {
        pendingTransfers.add(transfer);
        return;
      }
      if (pendingTransfers.isEmpty()) {
        pendingTransfers.add(transfer);
        return;
      }
      PendingTransfer other = pendingTransfers.removeFirst();
      if (other.communication().direction() == p2p.direction()) {
        throw new IllegalStateException(
            "P2P "
                + p2p.direction().printed()
                + " "
                + p2p.id()
                + " follows "
                + other.communication().direction().printed()
                + " "
                + other.communication().id()
                + "; outside a coalescing group a send and a recv must come in pairs");
      }
      if (send) {
        postPair(transfer, other, s);
      } else {
        postPair(other, transfer, s);
      }
    };
  }

  /** A batched handle exchange: publishes and maps what the IPC transfers listed need, once. */
  Step share(ShareMemHandles share, CompileScope scope) {
    List<Step> steps = new ArrayList<>();
    for (P2PCommunication p2p : share.communications()) {
      if (!context.analysis().overIpc(p2p)) {
        continue; // Nothing to exchange when the pair goes through the communicator.
      }
      int channel = context.analysis().channelOf.get(p2p.id());
      CompiledIndex peer = CompiledIndex.of(p2p.peer(), scope.slots);
      int buffer = p2p.buffer().id();
      String bufferName = p2p.buffer().name();
      if (p2p.direction() == P2PCommunication.Direction.SEND) {
        int root = context.analysis().root(buffer);
        steps.add(
            s -> {
              DeviceBuffer rootBuffer = s.tensor(root, "T" + root);
              if (!(rootBuffer instanceof ShareableBuffer shareable)) {
                throw new IllegalStateException(
                    "T" + root + " is sent over IPC but its memory is not shareable");
              }
              context
                  .ipc()
                  .shareSend(
                      channel,
                      context.checkedRank(peer.value(s), "peer"),
                      s.tensor(buffer, bufferName),
                      shareable);
            });
      } else {
        steps.add(
            s -> context.ipc().shareRecv(channel, context.checkedRank(peer.value(s), "peer")));
      }
    }
    return Step.sequence(steps.toArray(Step[]::new));
  }

  Step startCoalescing() {
    return s -> coalescing().start();
  }

  Step endCoalescing() {
    return s -> coalescing().end(s);
  }
}
