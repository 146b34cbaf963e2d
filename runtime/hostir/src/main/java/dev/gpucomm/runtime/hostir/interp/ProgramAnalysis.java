package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.api.v1alpha1.CommBackend;
import dev.gpucomm.runtime.hostir.ir.Communication;
import dev.gpucomm.runtime.hostir.ir.ForLoop;
import dev.gpucomm.runtime.hostir.ir.IfThenElse;
import dev.gpucomm.runtime.hostir.ir.P2PCommunication;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.ShardByStream;
import dev.gpucomm.runtime.hostir.ir.Statement;
import dev.gpucomm.runtime.hostir.ir.Tensor;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the interpreter must know about a program before compiling it: the largest tensor and
 * communication numbers, which tensor each view aliases, which tensors must live in shareable
 * memory (those IPC sends read from), and the IPC channels (a send and the recv that pairs with
 * it).
 */
final class ProgramAnalysis {
  int maxTensorId;
  int maxCommunicationId;
  final Map<Integer, Integer> aliasOf = new HashMap<>();
  final Set<Integer> shareableRoots = new HashSet<>();
  final Map<Integer, Integer> channelOf = new HashMap<>();
  int channels;
  final boolean ipcPointToPoint;

  /**
   * @param ipcPointToPoint whether IPC point-to-point communications run over the get protocol (the
   *     device can) rather than pairing into communicator send/recv steps
   */
  ProgramAnalysis(Program program, boolean ipcPointToPoint) {
    this.ipcPointToPoint = ipcPointToPoint;
    program.inputs().forEach(this::seeTensor);
    program.outputs().forEach(this::seeTensor);
    scan(program.body());
  }

  /** The tensor that owns the memory {@code tensorId} views. */
  int root(int tensorId) {
    int current = tensorId;
    Integer next;
    while ((next = aliasOf.get(current)) != null) {
      current = next;
    }
    return current;
  }

  boolean overIpc(P2PCommunication p2p) {
    return ipcPointToPoint && p2p.backend() == CommBackend.IPC;
  }

  private void scan(List<Statement> statements) {
    Deque<P2PCommunication> unpairedSends = new ArrayDeque<>();
    for (Statement statement : statements) {
      statement.forEachTensor(this::seeTensor);
      switch (statement) {
        case ForLoop loop -> scan(loop.body());
        case IfThenElse branch -> {
          scan(branch.then());
          scan(branch.otherwise());
        }
        case ShardByStream shard -> aliasOf.put(shard.out().id(), shard.in().id());
        case Communication communication -> {
          maxCommunicationId = Math.max(maxCommunicationId, communication.id());
          if (communication instanceof P2PCommunication p2p && overIpc(p2p)) {
            pairIpc(p2p, unpairedSends);
          }
        }
        default -> {}
      }
    }
  }

  /** Gives an IPC send a new channel, and an IPC recv the channel of the send it pairs with. */
  private void pairIpc(P2PCommunication p2p, Deque<P2PCommunication> unpairedSends) {
    if (p2p.direction() == P2PCommunication.Direction.SEND) {
      shareableRoots.add(root(p2p.buffer().id()));
      channelOf.put(p2p.id(), channels++);
      unpairedSends.push(p2p);
    } else {
      if (unpairedSends.isEmpty()) {
        throw new IllegalArgumentException(
            "IPC recv " + p2p.id() + " has no IPC send before it in its block to pair with");
      }
      channelOf.put(p2p.id(), channelOf.get(unpairedSends.pop().id()));
    }
  }

  private void seeTensor(Tensor tensor) {
    maxTensorId = Math.max(maxTensorId, tensor.id());
  }
}
