package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.CommBackend;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.ShareableBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.StreamMemoryOperations;
import dev.gpucomm.runtime.hostir.ir.AllReduce;
import dev.gpucomm.runtime.hostir.ir.Allgather;
import dev.gpucomm.runtime.hostir.ir.Allocate;
import dev.gpucomm.runtime.hostir.ir.Broadcast;
import dev.gpucomm.runtime.hostir.ir.CollectivePermute;
import dev.gpucomm.runtime.hostir.ir.Communication;
import dev.gpucomm.runtime.hostir.ir.Copy;
import dev.gpucomm.runtime.hostir.ir.EndCoalescing;
import dev.gpucomm.runtime.hostir.ir.ForLoop;
import dev.gpucomm.runtime.hostir.ir.GetCurrentStream;
import dev.gpucomm.runtime.hostir.ir.IfThenElse;
import dev.gpucomm.runtime.hostir.ir.Matmul;
import dev.gpucomm.runtime.hostir.ir.P2PCommunication;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.SetCurrentStream;
import dev.gpucomm.runtime.hostir.ir.ShardByStream;
import dev.gpucomm.runtime.hostir.ir.ShareMemHandles;
import dev.gpucomm.runtime.hostir.ir.StartCoalescing;
import dev.gpucomm.runtime.hostir.ir.Statement;
import dev.gpucomm.runtime.hostir.ir.StreamRef;
import dev.gpucomm.runtime.hostir.ir.Synchronize;
import dev.gpucomm.runtime.hostir.ir.Tensor;
import dev.gpucomm.runtime.hostir.ir.Wait;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Runs a host program on one rank's device and communicators. Every statement enqueues work on the
 * current stream; {@link #run} returns once everything is enqueued, without waiting for the device
 * (the caller records an event or synchronizes the stream it passed).
 *
 * <p>Streams and events are the device's own. Synchronize records an event on the named stream and
 * makes the current stream wait for it; the host never blocks on it. Worker streams, events, and
 * the memory of every tensor are created once, on first use, and reused by later runs: an Allocate
 * inside loops gets one buffer per combination of the enclosing loop indices, so that iterations on
 * different streams never share one. Communications posted on worker stream i go through that
 * stream's communicator from {@link StreamCommunicators}, so each stream has at most one collective
 * of a communicator in flight.
 *
 * <p>Point-to-point communications with the IPC backend run the get protocol of {@link
 * IpcGetProtocol} when the device offers {@link StreamMemoryOperations}; otherwise, like those with
 * the NCCL backend, a send and the recv next to it (or the pairs of a coalescing group) are posted
 * together as one {@link Communicator#sendReceive} step. {@link #transports()} says which.
 */
public final class HostIrInterpreter implements AutoCloseable {
  private static final Duration DEFAULT_RENDEZVOUS_TIMEOUT = Duration.ofMinutes(5);

  private final Program program;
  private final Device device;
  private final RankTopology topology;
  private final StreamCommunicators communicators;
  private final DeviceResources resources;
  private final ProgramAnalysis analysis;
  private final IpcGetProtocol ipc;
  private final ExecutionState state;
  private final Set<String> transports = new LinkedHashSet<>();
  private final Map<String, Integer> streamVariableSlots = new HashMap<>();
  private final Map<String, Integer> loopSlotOfName = new HashMap<>();
  private final Map<Integer, DeviceBuffer> topLevelBuffers = new HashMap<>();
  private final Set<Integer> inputIds = new HashSet<>();
  private final Set<Integer> waitsOnOtherStreams = new HashSet<>();
  private final PostRecord[] posts;
  private final Step body;
  private StreamSlot lastMain;
  private boolean closed;

  private HostIrInterpreter(
      Program program,
      Device device,
      StreamCommunicators communicators,
      KeyValueStore store,
      RankTopology topology,
      Duration rendezvousTimeout,
      Optional<StreamMemoryOperations> memoryOperations) {
    if (program.teamSize() != topology.worldSize()) {
      throw new IllegalArgumentException(
          "program is written for "
              + program.teamSize()
              + " ranks but the world has "
              + topology.worldSize());
    }
    this.program = program;
    this.device = device;
    this.topology = topology;
    this.communicators = communicators;
    this.resources = new DeviceResources(device);
    try {
      this.analysis = new ProgramAnalysis(program, memoryOperations.isPresent());
      this.ipc =
          analysis.channels > 0
              ? new IpcGetProtocol(
                  resources,
                  memoryOperations.orElseThrow(),
                  store,
                  rendezvousTimeout,
                  topology.rank(),
                  topology.worldSize(),
                  analysis.channels)
              : null;
      this.posts = new PostRecord[analysis.maxCommunicationId + 1];
      CompileScope scope = new CompileScope();
      List<Step> steps = new ArrayList<>();
      scanWaits(program.body(), waitsOnOtherStreams);
      this.state =
          new ExecutionState(
              topology.rank(),
              Math.max(1, countLoopSlots(program.body())),
              analysis.maxTensorId + 1,
              Math.max(1, countStreamVariables(program.body())));
      for (Tensor input : program.inputs()) {
        DeviceBuffer buffer =
            resources.allocate(input.localBytes(), analysis.shareableRoots.contains(input.id()));
        state.tensors[input.id()] = buffer;
        topLevelBuffers.put(input.id(), buffer);
        inputIds.add(input.id());
      }
      steps.addAll(compileBlock(program.body(), scope));
      this.body = Step.sequence(steps.toArray(Step[]::new));
    } catch (RuntimeException e) {
      resources.close();
      throw e;
    }
  }

  /**
   * An interpreter of {@code program} for the rank of {@code topology}; {@code store} is a view of
   * the job's store private to this program instance (IPC handles are exchanged under it). IPC
   * point-to-point transfers use the device's stream memory operations where {@link
   * MemoryOperationsLookup} finds them.
   */
  public static HostIrInterpreter create(
      Program program,
      Device device,
      StreamCommunicators communicators,
      KeyValueStore store,
      RankTopology topology) {
    return create(
        program,
        device,
        communicators,
        store,
        topology,
        DEFAULT_RENDEZVOUS_TIMEOUT,
        MemoryOperationsLookup.of(device));
  }

  /**
   * An interpreter with an explicit rendezvous timeout and stream memory operations; without memory
   * operations, IPC point-to-point transfers pair into communicator send/recv steps.
   */
  public static HostIrInterpreter create(
      Program program,
      Device device,
      StreamCommunicators communicators,
      KeyValueStore store,
      RankTopology topology,
      Duration rendezvousTimeout,
      Optional<StreamMemoryOperations> memoryOperations) {
    return new HostIrInterpreter(
        program, device, communicators, store, topology, rendezvousTimeout, memoryOperations);
  }

  public Program program() {
    return program;
  }

  /**
   * The memory of a program input (fill it before {@link #run}) or of a tensor allocated at the top
   * level, such as an output (read it after the run's work is done).
   */
  public DeviceBuffer buffer(Tensor tensor) {
    checkOpen();
    DeviceBuffer buffer = topLevelBuffers.get(tensor.id());
    if (buffer == null) {
      throw new IllegalArgumentException(
          tensor.name() + " is neither an input nor allocated at the top level of the program");
    }
    return buffer;
  }

  /** Enqueues one run of the program, with {@code stream} as its main (initial current) stream. */
  public void run(Stream stream) {
    checkOpen();
    if (lastMain == null || lastMain.stream() != stream) {
      lastMain = new StreamSlot(stream, -1);
    }
    state.reset(lastMain);
    body.execute(state);
    if (state.current.stream() != stream) {
      throw new IllegalStateException(
          "the program ended on another stream than its main one; a SetCurrentStream to main is"
              + " missing after its stream-parallel loops");
    }
  }

  /** How each kind of communication of the program is carried, in words, in program order. */
  public List<String> transports() {
    return List.copyOf(transports);
  }

  /** Worker streams created so far. */
  public int workerStreams() {
    return resources.workerCount();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    resources.close();
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("interpreter is closed");
    }
  }

  // ---------------------------------------------------------------- compilation

  /** Where the statement being compiled sits: the loops around it and their index slots. */
  private final class CompileScope {
    final Map<String, Integer> slots = new HashMap<>();
    final List<Integer> enclosingSlots = new ArrayList<>();
  }

  private static int countLoopSlots(List<Statement> statements) {
    Set<String> names = new HashSet<>();
    collectLoopNames(statements, names);
    return names.size();
  }

  private static void collectLoopNames(List<Statement> statements, Set<String> names) {
    for (Statement statement : statements) {
      if (statement instanceof ForLoop loop) {
        names.add(loop.index().name());
        collectLoopNames(loop.body(), names);
      } else if (statement instanceof IfThenElse branch) {
        collectLoopNames(branch.then(), names);
        collectLoopNames(branch.otherwise(), names);
      }
    }
  }

  private static int countStreamVariables(List<Statement> statements) {
    Set<String> names = new HashSet<>();
    collectStreamVariables(statements, names);
    return names.size();
  }

  private static void collectStreamVariables(List<Statement> statements, Set<String> names) {
    for (Statement statement : statements) {
      switch (statement) {
        case GetCurrentStream get -> names.add(get.into().name());
        case ForLoop loop -> collectStreamVariables(loop.body(), names);
        case IfThenElse branch -> {
          collectStreamVariables(branch.then(), names);
          collectStreamVariables(branch.otherwise(), names);
        }
        default -> {}
      }
    }
  }

  private List<Step> compileBlock(List<Statement> statements, CompileScope scope) {
    List<Step> steps = new ArrayList<>();
    boolean[] sameStream = waitsOnTheirOwnStream(statements);
    for (int index = 0; index < statements.size(); index++) {
      steps.add(compile(statements.get(index), scope, sameStream[index]));
    }
    return steps;
  }

  /**
   * For each statement of a block, whether it is a Wait certain to run on the stream its
   * communication was posted on: the communication was posted earlier in the same block and the
   * current stream cannot have changed since. Such a Wait is already satisfied by stream order.
   */
  private static boolean[] waitsOnTheirOwnStream(List<Statement> statements) {
    boolean[] sameStream = new boolean[statements.size()];
    Set<Integer> postedOnThisStream = new HashSet<>();
    for (int index = 0; index < statements.size(); index++) {
      Statement statement = statements.get(index);
      if (changesStream(statement)) {
        postedOnThisStream.clear();
      }
      if (statement instanceof Communication communication) {
        postedOnThisStream.add(communication.id());
      }
      sameStream[index] = statement instanceof Wait(int id) && postedOnThisStream.contains(id);
    }
    return sameStream;
  }

  /** Collects the communications that some Wait may wait for from another stream. */
  private static void scanWaits(List<Statement> statements, Set<Integer> crossStream) {
    boolean[] sameStream = waitsOnTheirOwnStream(statements);
    for (int index = 0; index < statements.size(); index++) {
      boolean waitOnItsStream = sameStream[index];
      switch (statements.get(index)) {
        case Wait(int id) when !waitOnItsStream -> crossStream.add(id);
        case ForLoop loop -> scanWaits(loop.body(), crossStream);
        case IfThenElse branch -> {
          scanWaits(branch.then(), crossStream);
          scanWaits(branch.otherwise(), crossStream);
        }
        default -> {}
      }
    }
  }

  private static boolean changesStream(Statement statement) {
    return switch (statement) {
      case SetCurrentStream ignored -> true;
      case ForLoop loop -> loop.body().stream().anyMatch(HostIrInterpreter::changesStream);
      case IfThenElse branch ->
          branch.then().stream().anyMatch(HostIrInterpreter::changesStream)
              || branch.otherwise().stream().anyMatch(HostIrInterpreter::changesStream);
      default -> false;
    };
  }

  private Step compile(Statement statement, CompileScope scope, boolean waitOnSameStream) {
    return switch (statement) {
      case Allocate allocate -> compileAllocate(allocate, scope);
      case ForLoop loop -> compileLoop(loop, scope);
      case IfThenElse branch -> {
        var condition = branch.condition();
        CompiledIndex left = CompiledIndex.of(condition.left(), scope.slots);
        CompiledIndex right = CompiledIndex.of(condition.right(), scope.slots);
        Step then = Step.sequence(compileBlock(branch.then(), scope).toArray(Step[]::new));
        Step otherwise =
            Step.sequence(compileBlock(branch.otherwise(), scope).toArray(Step[]::new));
        yield s -> {
          if (left.value(s) == right.value(s)) {
            then.execute(s);
          } else {
            otherwise.execute(s);
          }
        };
      }
      case GetCurrentStream get -> {
        int slot = streamVariableSlot(get.into().name());
        yield s -> s.streamVariables[slot] = s.current;
      }
      case SetCurrentStream set -> {
        StreamResolver resolver = resolver(set.stream(), scope);
        yield s -> s.current = resolver.resolve(s);
      }
      case Synchronize synchronize -> {
        StreamResolver resolver = resolver(synchronize.stream(), scope);
        DeviceResources.EventsByStream events = resources.eventsByStream();
        yield s -> {
          StreamSlot target = resolver.resolve(s);
          Stream current = s.current.stream();
          if (target.stream() != current) {
            Event event = events.on(target.stream());
            event.record(target.stream());
            current.waitFor(event);
          }
        };
      }
      case ShardByStream shard -> compileShard(shard, scope);
      case Copy copy -> {
        int out = copy.out().id();
        int in = copy.in().id();
        long bytes = copy.out().localBytes();
        String outName = copy.out().name();
        String inName = copy.in().name();
        yield s ->
            device.copy(
                s.tensor(out, outName), 0, s.tensor(in, inName), 0, bytes, s.current.stream());
      }
      case Matmul matmul -> {
        int out = matmul.out().id();
        int a = matmul.a().id();
        int b = matmul.b().id();
        long m = matmul.m();
        long n = matmul.n();
        long k = matmul.k();
        var dtype = matmul.out().dtype();
        String outName = matmul.out().name();
        String aName = matmul.a().name();
        String bName = matmul.b().name();
        yield s ->
            device
                .matmul()
                .multiply(
                    s.tensor(a, aName),
                    s.tensor(b, bName),
                    s.tensor(out, outName),
                    m,
                    n,
                    k,
                    dtype,
                    false,
                    s.current.stream());
      }
      case Communication communication -> compileCommunication(communication, scope);
      case ShareMemHandles share -> compileShare(share, scope);
      case Wait wait -> compileWait(wait, waitOnSameStream);
      case StartCoalescing ignored -> s -> coalescing().start();
      case EndCoalescing ignored -> s -> coalescing().end(s);
    };
  }

  private int streamVariableSlot(String name) {
    return streamVariableSlots.computeIfAbsent(name, key -> streamVariableSlots.size());
  }

  /** Resolves a stream reference while the program runs. */
  @FunctionalInterface
  private interface StreamResolver {
    StreamSlot resolve(ExecutionState state);
  }

  private StreamResolver resolver(StreamRef ref, CompileScope scope) {
    return switch (ref) {
      case StreamRef.Named named -> {
        int slot = streamVariableSlot(named.name());
        String name = named.name();
        yield s -> {
          StreamSlot stream = s.streamVariables[slot];
          if (stream == null) {
            throw new IllegalStateException(
                "Stream " + name + " is used before GetCurrentStream stored it");
          }
          return stream;
        };
      }
      case StreamRef.Worker worker -> {
        CompiledIndex index = CompiledIndex.of(worker.index(), scope.slots);
        yield s -> resources.worker(Math.toIntExact(index.value(s)));
      }
    };
  }

  private Step compileLoop(ForLoop loop, CompileScope scope) {
    String name = loop.index().name();
    if (scope.slots.containsKey(name)) {
      throw new IllegalArgumentException(
          "loop index " + name + " shadows the index of a loop around it");
    }
    CompiledIndex start = CompiledIndex.of(loop.start(), scope.slots);
    CompiledIndex stop = CompiledIndex.of(loop.stop(), scope.slots);
    // A later loop with the same index name (the join loop after a stream-parallel loop) reuses the
    // slot: indices are bound only inside their loop's body, so the two never overlap.
    int slot = loopSlotOfName.computeIfAbsent(name, key -> loopSlotOfName.size());
    scope.slots.put(name, slot);
    scope.enclosingSlots.add(slot);
    Step body;
    try {
      body = Step.sequence(compileBlock(loop.body(), scope).toArray(Step[]::new));
    } finally {
      scope.slots.remove(name);
      scope.enclosingSlots.removeLast();
    }
    return s -> {
      long end = stop.value(s);
      for (long value = start.value(s); value < end; value++) {
        s.loopIndices[slot] = value;
        body.execute(s);
      }
    };
  }

  private Step compileAllocate(Allocate allocate, CompileScope scope) {
    Tensor tensor = allocate.tensor();
    int id = tensor.id();
    boolean shareable = analysis.shareableRoots.contains(id);
    if (inputIds.contains(id)) {
      throw new IllegalArgumentException(
          tensor.name() + " is a program input; it is not allocated");
    }
    if (scope.enclosingSlots.isEmpty()) {
      DeviceBuffer buffer = resources.allocate(tensor.localBytes(), shareable);
      topLevelBuffers.put(id, buffer);
      return s -> s.tensors[id] = buffer;
    }
    int[] slots = scope.enclosingSlots.stream().mapToInt(Integer::intValue).toArray();
    if (slots.length > 4) {
      throw new IllegalArgumentException(
          "Allocate of " + tensor.name() + " is nested in more than 4 loops");
    }
    Map<Long, DeviceBuffer> buffers = new HashMap<>();
    long bytes = tensor.localBytes();
    return s -> {
      long key = 0;
      for (int slot : slots) {
        long value = s.loopIndices[slot];
        if (value < 0 || value > 0xFFFF) {
          throw new IllegalStateException(
              "Allocate of " + tensor.name() + " in an iteration outside 0..65535");
        }
        key = key << 16 | value;
      }
      DeviceBuffer buffer = buffers.get(key);
      if (buffer == null) {
        buffer = resources.allocate(bytes, shareable);
        buffers.put(key, buffer);
      }
      s.tensors[id] = buffer;
    };
  }

  private Step compileShard(ShardByStream shard, CompileScope scope) {
    int out = shard.out().id();
    int in = shard.in().id();
    String inName = shard.in().name();
    long chunks = shard.in().axes().get(shard.in().streamAxis()).extent();
    long chunkBytes = shard.out().localBytes();
    CompiledIndex index = CompiledIndex.of(shard.index(), scope.slots);
    Map<DeviceBuffer, DeviceBuffer[]> slicesBySource = new IdentityHashMap<>();
    return s -> {
      DeviceBuffer source = s.tensor(in, inName);
      long chunk = index.value(s);
      if (chunk < 0 || chunk >= chunks) {
        throw new IllegalStateException(
            "ShardByStream of " + inName + ": chunk " + chunk + " outside 0.." + (chunks - 1));
      }
      DeviceBuffer[] slices = slicesBySource.get(source);
      if (slices == null) {
        slices = new DeviceBuffer[Math.toIntExact(chunks)];
        slicesBySource.put(source, slices);
      }
      int position = (int) chunk;
      DeviceBuffer slice = slices[position];
      if (slice == null) {
        slice = source.slice(chunk * chunkBytes, chunkBytes);
        slices[position] = slice;
      }
      s.tensors[out] = slice;
    };
  }

  // ---------------------------------------------------------------- communications

  /** Where and how communication {@code id} was last posted, for its Wait. */
  private static final class PostRecord {
    final DeviceResources.EventsByStream completions;
    final boolean needsEvent;
    StreamSlot postedOn;
    int peer;
    boolean pending;

    PostRecord(DeviceResources.EventsByStream completions, boolean needsEvent) {
      this.completions = completions;
      this.needsEvent = needsEvent;
    }
  }

  private PostRecord record(int id) {
    PostRecord record = posts[id];
    if (record == null) {
      // Events are cheap but not free: record one after posting only when some Wait of this
      // communication may run on another stream.
      record = new PostRecord(resources.eventsByStream(), needsCompletionEvent(id));
      posts[id] = record;
    }
    return record;
  }

  private boolean needsCompletionEvent(int id) {
    return waitsOnOtherStreams.contains(id);
  }

  private void posted(PostRecord record, ExecutionState s) {
    record.postedOn = s.current;
    record.pending = false;
    if (record.needsEvent) {
      Stream stream = s.current.stream();
      record.completions.on(stream).record(stream);
    }
  }

  private Communicator communicator(ExecutionState s) {
    int worker = s.current.workerIndex();
    return worker < 0 ? communicators.main() : communicators.forWorker(worker);
  }

  private Step compileCommunication(Communication communication, CompileScope scope) {
    PostRecord record = record(communication.id());
    Communicator main = communicators.main();
    return switch (communication) {
      case AllReduce allReduce -> {
        int in = allReduce.input().id();
        int out = allReduce.output().id();
        long count = allReduce.output().localElements();
        var dtype = allReduce.output().dtype();
        Algorithm algorithm =
            allReduceAlgorithm(allReduce.backend(), main, allReduce.output().localBytes());
        String inName = allReduce.input().name();
        String outName = allReduce.output().name();
        yield s -> {
          communicator(s)
              .allReduce(
                  algorithm,
                  s.tensor(in, inName),
                  s.tensor(out, outName),
                  count,
                  dtype,
                  s.current.stream());
          posted(record, s);
        };
      }
      case Allgather allgather -> {
        int in = allgather.input().id();
        int out = allgather.output().id();
        long count = allgather.input().localElements();
        var dtype = allgather.input().dtype();
        Algorithm algorithm = libraryAlgorithm("Allgather", allgather.backend(), main);
        String inName = allgather.input().name();
        String outName = allgather.output().name();
        yield s -> {
          communicator(s)
              .allGather(
                  algorithm,
                  s.tensor(in, inName),
                  s.tensor(out, outName),
                  count,
                  dtype,
                  s.current.stream());
          posted(record, s);
        };
      }
      case Broadcast broadcast -> {
        int in = broadcast.input().id();
        int out = broadcast.output().id();
        long count = broadcast.input().localElements();
        var dtype = broadcast.input().dtype();
        CompiledIndex root = CompiledIndex.of(broadcast.root(), scope.slots);
        Algorithm algorithm = libraryAlgorithm("Broadcast", broadcast.backend(), main);
        String inName = broadcast.input().name();
        String outName = broadcast.output().name();
        yield s -> {
          communicator(s)
              .broadcast(
                  algorithm,
                  s.tensor(in, inName),
                  s.tensor(out, outName),
                  count,
                  dtype,
                  checkedRank(root.value(s), "broadcast root"),
                  s.current.stream());
          posted(record, s);
        };
      }
      case CollectivePermute permute -> {
        int in = permute.input().id();
        int out = permute.output().id();
        long bytes = permute.input().localBytes();
        CompiledIndex sendPeer = CompiledIndex.of(permute.sendPeer(), scope.slots);
        CompiledIndex recvPeer = CompiledIndex.of(permute.recvPeer(), scope.slots);
        transports.add(
            "CollectivePermute: communicator sendReceive per step ("
                + permute.backend().wireName()
                + " backend), local copy at step 0");
        String inName = permute.input().name();
        String outName = permute.output().name();
        yield s -> {
          int sendTo = checkedRank(sendPeer.value(s), "send peer");
          int receiveFrom = checkedRank(recvPeer.value(s), "recv peer");
          DeviceBuffer input = s.tensor(in, inName);
          DeviceBuffer output = s.tensor(out, outName);
          Stream stream = s.current.stream();
          if (sendTo == s.rank && receiveFrom == s.rank) {
            device.copy(output, 0, input, 0, bytes, stream);
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
            communicator(s).sendReceive(input, sendTo, output, receiveFrom, bytes, stream);
          }
          posted(record, s);
        };
      }
      case P2PCommunication p2p -> compilePointToPoint(p2p, record, scope);
    };
  }

  private int checkedRank(long value, String what) {
    if (value < 0 || value >= topology.worldSize()) {
      throw new IllegalStateException(
          what + " " + value + " is outside the world of " + topology.worldSize());
    }
    return (int) value;
  }

  private Algorithm allReduceAlgorithm(CommBackend backend, Communicator main, long bytes) {
    Set<Algorithm> available = main.allReduceAlgorithms();
    if (backend == CommBackend.IPC) {
      if (bytes <= main.maxPeerMemoryBytes()) {
        for (Algorithm candidate : List.of(Algorithm.TWOSHOT, Algorithm.ONESHOT)) {
          if (available.contains(candidate)) {
            transports.add("Allreduce: " + candidate.wireName() + " (ipc backend)");
            return candidate;
          }
        }
      }
      Algorithm fallback = libraryAlgorithm(main);
      transports.add(
          "Allreduce: "
              + fallback.wireName()
              + " (ipc backend asked for, but "
              + (bytes > main.maxPeerMemoryBytes()
                  ? bytes + " bytes exceed the peer-memory limit of " + main.maxPeerMemoryBytes()
                  : "the communicator has no peer-memory all-reduce: " + main.unavailableReason())
              + ")");
      return fallback;
    }
    Algorithm algorithm = libraryAlgorithm(main);
    transports.add("Allreduce: " + algorithm.wireName() + " (nccl backend)");
    return algorithm;
  }

  private Algorithm libraryAlgorithm(String what, CommBackend backend, Communicator main) {
    Algorithm algorithm = libraryAlgorithm(main);
    transports.add(
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

  // ---------------------------------------------------------------- point to point

  private final List<PendingTransfer> pendingTransfers = new ArrayList<>();
  private Coalescing coalescing;

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
    communicator(s)
        .sendReceive(
            send.buffer(), send.peer(), recv.buffer(), recv.peer(), bytes, s.current.stream());
    posted(send.record(), s);
    posted(recv.record(), s);
  }

  private Step compilePointToPoint(P2PCommunication p2p, PostRecord record, CompileScope scope) {
    int buffer = p2p.buffer().id();
    String bufferName = p2p.buffer().name();
    CompiledIndex peer = CompiledIndex.of(p2p.peer(), scope.slots);
    boolean send = p2p.direction() == P2PCommunication.Direction.SEND;
    if (analysis.overIpc(p2p)) {
      transports.add("P2P: ipc get protocol (stream memory operations on semaphores)");
      int channel = analysis.channelOf.get(p2p.id());
      return s -> {
        int peerRank = checkedRank(peer.value(s), "peer");
        record.peer = peerRank;
        if (send) {
          ipc.postSend(channel, peerRank, s.current.stream());
        } else {
          ipc.postRecv(channel, peerRank, s.tensor(buffer, bufferName), s.current.stream());
        }
        posted(record, s);
      };
    }
    transports.add(
        "P2P: communicator sendReceive pairs ("
            + p2p.backend().wireName()
            + " backend"
            + (p2p.backend() == CommBackend.IPC
                ? "; this device has no stream memory operations for the IPC get protocol"
                : "")
            + ")");
    return s -> {
      int peerRank = checkedRank(peer.value(s), "peer");
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

  private Step compileShare(ShareMemHandles share, CompileScope scope) {
    List<Step> steps = new ArrayList<>();
    for (P2PCommunication p2p : share.communications()) {
      if (!analysis.overIpc(p2p)) {
        continue; // Nothing to exchange when the pair goes through the communicator.
      }
      int channel = analysis.channelOf.get(p2p.id());
      CompiledIndex peer = CompiledIndex.of(p2p.peer(), scope.slots);
      int buffer = p2p.buffer().id();
      String bufferName = p2p.buffer().name();
      if (p2p.direction() == P2PCommunication.Direction.SEND) {
        int root = analysis.root(buffer);
        steps.add(
            s -> {
              DeviceBuffer rootBuffer = s.tensor(root, "T" + root);
              if (!(rootBuffer instanceof ShareableBuffer shareable)) {
                throw new IllegalStateException(
                    "T" + root + " is sent over IPC but its memory is not shareable");
              }
              ipc.shareSend(
                  channel,
                  checkedRank(peer.value(s), "peer"),
                  s.tensor(buffer, bufferName),
                  shareable);
            });
      } else {
        steps.add(s -> ipc.shareRecv(channel, checkedRank(peer.value(s), "peer")));
      }
    }
    return Step.sequence(steps.toArray(Step[]::new));
  }

  private Step compileWait(Wait wait, boolean sameStream) {
    int id = wait.communicationId();
    if (id >= posts.length) {
      throw new IllegalArgumentException("Wait on communication " + id + ", which does not exist");
    }
    P2PCommunication ipcSend = ipcSend(id);
    int channel = ipcSend == null ? -1 : analysis.channelOf.get(id);
    return s -> {
      PostRecord record = posts[id];
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
        ipc.waitSent(channel, record.peer, current);
      }
    };
  }

  private P2PCommunication ipcSend(int id) {
    return findIpcSend(program.body(), id);
  }

  private P2PCommunication findIpcSend(List<Statement> statements, int id) {
    for (Statement statement : statements) {
      P2PCommunication found =
          switch (statement) {
            case P2PCommunication p2p
                when p2p.id() == id
                    && p2p.direction() == P2PCommunication.Direction.SEND
                    && analysis.overIpc(p2p) ->
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
