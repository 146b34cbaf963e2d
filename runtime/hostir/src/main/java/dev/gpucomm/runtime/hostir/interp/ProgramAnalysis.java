package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.api.v1alpha1.CommBackend;
import dev.gpucomm.runtime.hostir.ir.AllReduce;
import dev.gpucomm.runtime.hostir.ir.Allgather;
import dev.gpucomm.runtime.hostir.ir.Allocate;
import dev.gpucomm.runtime.hostir.ir.Broadcast;
import dev.gpucomm.runtime.hostir.ir.CollectivePermute;
import dev.gpucomm.runtime.hostir.ir.Communication;
import dev.gpucomm.runtime.hostir.ir.Copy;
import dev.gpucomm.runtime.hostir.ir.ForLoop;
import dev.gpucomm.runtime.hostir.ir.IfThenElse;
import dev.gpucomm.runtime.hostir.ir.Matmul;
import dev.gpucomm.runtime.hostir.ir.P2PCommunication;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.ShardByStream;
import dev.gpucomm.runtime.hostir.ir.ShareMemHandles;
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
      switch (statement) {
        case Allocate allocate -> seeTensor(allocate.tensor());
        case ForLoop loop -> scan(loop.body());
        case IfThenElse branch -> {
          scan(branch.then());
          scan(branch.otherwise());
        }
        case ShardByStream shard -> {
          seeTensor(shard.out());
          seeTensor(shard.in());
          aliasOf.put(shard.out().id(), shard.in().id());
        }
        case Copy copy -> {
          seeTensor(copy.out());
          seeTensor(copy.in());
        }
        case Matmul matmul -> {
          seeTensor(matmul.out());
          seeTensor(matmul.a());
          seeTensor(matmul.b());
        }
        case P2PCommunication p2p -> {
          seeCommunication(p2p);
          if (overIpc(p2p)) {
            if (p2p.direction() == P2PCommunication.Direction.SEND) {
              shareableRoots.add(root(p2p.buffer().id()));
              channelOf.put(p2p.id(), channels++);
              unpairedSends.push(p2p);
            } else {
              if (unpairedSends.isEmpty()) {
                throw new IllegalArgumentException(
                    "IPC recv "
                        + p2p.id()
                        + " has no IPC send before it in its block to pair with");
              }
              channelOf.put(p2p.id(), channelOf.get(unpairedSends.pop().id()));
            }
          }
        }
        case Communication communication -> seeCommunication(communication);
        case ShareMemHandles ignored -> {}
        default -> {}
      }
    }
  }

  private void seeCommunication(Communication communication) {
    maxCommunicationId = Math.max(maxCommunicationId, communication.id());
    switch (communication) {
      case AllReduce c -> {
        seeTensor(c.input());
        seeTensor(c.output());
      }
      case Allgather c -> {
        seeTensor(c.input());
        seeTensor(c.output());
      }
      case Broadcast c -> {
        seeTensor(c.input());
        seeTensor(c.output());
      }
      case CollectivePermute c -> {
        seeTensor(c.input());
        seeTensor(c.output());
      }
      case P2PCommunication c -> seeTensor(c.buffer());
    }
  }

  private void seeTensor(Tensor tensor) {
    maxTensorId = Math.max(maxTensorId, tensor.id());
  }
}
