package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.CommBackend;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.hostir.ir.AllReduce;
import dev.gpucomm.runtime.hostir.ir.Allgather;
import dev.gpucomm.runtime.hostir.ir.Broadcast;
import dev.gpucomm.runtime.hostir.ir.CollectiveCommunication;
import dev.gpucomm.runtime.hostir.ir.CollectivePermute;
import dev.gpucomm.runtime.hostir.ir.Communication;
import dev.gpucomm.runtime.hostir.ir.ForLoop;
import dev.gpucomm.runtime.hostir.ir.IfThenElse;
import dev.gpucomm.runtime.hostir.ir.P2PCommunication;
import dev.gpucomm.runtime.hostir.ir.Statement;
import dev.gpucomm.runtime.hostir.ir.Wait;
import java.util.List;
import java.util.Set;

/**
 * Compiles communications and their Waits: collectives go to the current stream's communicator with
 * the algorithm their backend names (NCCL, or the ring that stands in for it on the CPU; an IPC
 * all-reduce runs two-shot or one-shot where the communicator can); point-to-point transfers go to
 * {@link PointToPointCompiler}. Each kind of communication adds a line saying how it is carried to
 * the interpreter's transports.
 */
final class CommunicationCompiler {
  private final CompileContext context;
  private final PointToPointCompiler pointToPoint;

  CommunicationCompiler(CompileContext context) {
    this.context = context;
    this.pointToPoint = new PointToPointCompiler(context);
  }

  PointToPointCompiler pointToPoint() {
    return pointToPoint;
  }

  /** A collective, or one half of a point-to-point transfer. */
  Step communication(Communication communication, CompileScope scope) {
    PostRecord record = context.record(communication.id());
    Communicator main = context.communicators().main();
    return switch (communication) {
      case AllReduce allReduce -> {
        long count = allReduce.output().localElements();
        DType dtype = allReduce.output().dtype();
        Algorithm algorithm =
            allReduceAlgorithm(allReduce.backend(), main, allReduce.output().localBytes());
        yield onCommunicator(
            allReduce,
            record,
            (communicator, input, output, s) ->
                communicator.allReduce(algorithm, input, output, count, dtype, s.current.stream()));
      }
      case Allgather allgather -> {
        long count = allgather.input().localElements();
        DType dtype = allgather.input().dtype();
        Algorithm algorithm = libraryAlgorithm("Allgather", allgather.backend(), main);
        yield onCommunicator(
            allgather,
            record,
            (communicator, input, output, s) ->
                communicator.allGather(algorithm, input, output, count, dtype, s.current.stream()));
      }
      case Broadcast broadcast -> {
        long count = broadcast.input().localElements();
        DType dtype = broadcast.input().dtype();
        CompiledIndex root = CompiledIndex.of(broadcast.root(), scope.slots);
        Algorithm algorithm = libraryAlgorithm("Broadcast", broadcast.backend(), main);
        yield onCommunicator(
            broadcast,
            record,
            (communicator, input, output, s) ->
                communicator.broadcast(
                    algorithm,
                    input,
                    output,
                    count,
                    dtype,
                    context.checkedRank(root.value(s), "broadcast root"),
                    s.current.stream()));
      }
      case CollectivePermute permute -> {
        int in = permute.input().id();
        int out = permute.output().id();
        long bytes = permute.input().localBytes();
        CompiledIndex sendPeer = CompiledIndex.of(permute.sendPeer(), scope.slots);
        CompiledIndex recvPeer = CompiledIndex.of(permute.recvPeer(), scope.slots);
        context
            .transports()
            .add(
                "CollectivePermute: communicator sendReceive per step ("
                    + permute.backend().wireName()
                    + " backend), local copy at step 0");
        String inName = permute.input().name();
        String outName = permute.output().name();
        yield s -> {
          int sendTo = context.checkedRank(sendPeer.value(s), "send peer");
          int receiveFrom = context.checkedRank(recvPeer.value(s), "recv peer");
          DeviceBuffer input = s.tensor(in, inName);
          DeviceBuffer output = s.tensor(out, outName);
          Stream stream = s.current.stream();
          if (sendTo == s.rank && receiveFrom == s.rank) {
            context.device().copy(output, 0, input, 0, bytes, stream);
          } else if (sendTo == s.rank || receiveFrom == s.rank) {
            throw new IllegalStateException(
                "collective permute "
                    + permute.id()
                    + " sends to rank "
                    + sendTo
                    + " and receives from rank "
                    + receiveFrom
                    + ": only both or neither may be this rank");
          } else {
            context.communicator(s).sendReceive(input, sendTo, output, receiveFrom, bytes, stream);
          }
          record.posted(s);
        };
      }
      case P2PCommunication p2p -> pointToPoint.transfer(p2p, record, scope);
    };
  }

  /** One call of a collective on the current stream's communicator. */
  @FunctionalInterface
  private interface CommunicatorCall {
    void post(
        Communicator communicator, DeviceBuffer input, DeviceBuffer output, ExecutionState state);
  }

  /**
   * A step that makes {@code call} with the buffers of the collective's input and output on the
   * current stream's communicator, then records the post.
   */
  private Step onCommunicator(
      CollectiveCommunication collective, PostRecord record, CommunicatorCall call) {
    int in = collective.input().id();
    int out = collective.output().id();
    String inName = collective.input().name();
    String outName = collective.output().name();
    return s -> {
      call.post(context.communicator(s), s.tensor(in, inName), s.tensor(out, outName), s);
      record.posted(s);
    };
  }

  private Algorithm allReduceAlgorithm(CommBackend backend, Communicator main, long bytes) {
    Set<Algorithm> available = main.allReduceAlgorithms();
    if (backend == CommBackend.IPC) {
      if (bytes <= main.maxPeerMemoryBytes()) {
        for (Algorithm candidate : List.of(Algorithm.TWOSHOT, Algorithm.ONESHOT)) {
          if (available.contains(candidate)) {
            context.transports().add("Allreduce: " + candidate.wireName() + " (ipc backend)");
            return candidate;
          }
        }
      }
      Algorithm fallback = libraryAlgorithm(main);
      context
          .transports()
          .add(
              "Allreduce: "
                  + fallback.wireName()
                  + " (ipc backend asked for, but "
                  + (bytes > main.maxPeerMemoryBytes()
                      ? bytes
                          + " bytes exceed the peer-memory limit of "
                          + main.maxPeerMemoryBytes()
                      : "the communicator has no peer-memory all-reduce: "
                          + main.unavailableReason())
                  + ")");
      return fallback;
    }
    Algorithm algorithm = libraryAlgorithm(main);
    context.transports().add("Allreduce: " + algorithm.wireName() + " (nccl backend)");
    return algorithm;
  }

  private Algorithm libraryAlgorithm(String what, CommBackend backend, Communicator main) {
    Algorithm algorithm = libraryAlgorithm(main);
    context
        .transports()
        .add(
            what
                + ": "
                + algorithm.wireName()
                + " ("
                + backend.wireName()
                + " backend"
                + (backend == CommBackend.IPC ? "; there is no IPC " + what.toLowerCase() : "")
                + ")");
    return algorithm;
  }

  /** NCCL where the communicator has it, else the ring that stands in for it on the CPU. */
  private static Algorithm libraryAlgorithm(Communicator main) {
    Set<Algorithm> available = main.allReduceAlgorithms();
    if (available.contains(Algorithm.NCCL)) {
      return Algorithm.NCCL;
    }
    if (available.contains(Algorithm.RING)) {
      return Algorithm.RING;
    }
    throw new IllegalStateException(
        "the communicator offers neither nccl nor ring, only " + available);
  }

  /**
   * A Wait: nothing when the communication was posted on the current stream (stream order does it),
   * else the current stream waits for its completion event; an IPC send also waits until the
   * receiver has read the buffer.
   */
  Step waitFor(Wait wait, boolean sameStream) {
    int id = wait.communicationId();
    if (id >= context.posts().length) {
      throw new IllegalArgumentException("Wait on communication " + id + ", which does not exist");
    }
    P2PCommunication ipcSend = ipcSend(id);
    int channel = ipcSend == null ? -1 : context.analysis().channelOf.get(id);
    return s -> {
      PostRecord record = context.posts()[id];
      if (record == null || record.postedOn == null) {
        throw new IllegalStateException("Wait on communication " + id + " before it was posted");
      }
      if (record.pending) {
        throw new IllegalStateException(
            "Wait on communication " + id + " while it waits for the other half of its pair");
      }
      Stream current = s.current.stream();
      Stream postedOn = record.postedOn.stream();
      if (postedOn != current) {
        if (sameStream || !record.needsEvent) {
          throw new IllegalStateException(
              "Wait on communication " + id + " runs on another stream than expected");
        }
        current.waitFor(record.completions.on(postedOn));
      }
      if (channel >= 0) {
        context.ipc().waitSent(channel, record.peer, current);
      }
    };
  }

  private P2PCommunication ipcSend(int id) {
    return findIpcSend(context.program().body(), id);
  }

  private P2PCommunication findIpcSend(List<Statement> statements, int id) {
    for (Statement statement : statements) {
      P2PCommunication found =
          switch (statement) {
            case P2PCommunication p2p
                when p2p.id() == id
                    && p2p.direction() == P2PCommunication.Direction.SEND
                    && context.analysis().overIpc(p2p) ->
                p2p;
            case ForLoop loop -> findIpcSend(loop.body(), id);
            case IfThenElse branch -> {
              P2PCommunication inThen = findIpcSend(branch.then(), id);
              yield inThen != null ? inThen : findIpcSend(branch.otherwise(), id);
            }
            default -> null;
          };
      if (found != null) {
        return found;
      }
    }
    return null;
  }
}
