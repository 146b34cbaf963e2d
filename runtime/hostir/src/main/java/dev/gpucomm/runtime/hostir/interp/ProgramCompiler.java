package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.hostir.ir.AllReduce;
import dev.gpucomm.runtime.hostir.ir.Allgather;
import dev.gpucomm.runtime.hostir.ir.Allocate;
import dev.gpucomm.runtime.hostir.ir.Broadcast;
import dev.gpucomm.runtime.hostir.ir.CollectivePermute;
import dev.gpucomm.runtime.hostir.ir.Communication;
import dev.gpucomm.runtime.hostir.ir.Condition;
import dev.gpucomm.runtime.hostir.ir.Copy;
import dev.gpucomm.runtime.hostir.ir.EndCoalescing;
import dev.gpucomm.runtime.hostir.ir.ForLoop;
import dev.gpucomm.runtime.hostir.ir.GetCurrentStream;
import dev.gpucomm.runtime.hostir.ir.IfThenElse;
import dev.gpucomm.runtime.hostir.ir.Matmul;
import dev.gpucomm.runtime.hostir.ir.P2PCommunication;
import dev.gpucomm.runtime.hostir.ir.SetCurrentStream;
import dev.gpucomm.runtime.hostir.ir.ShardByStream;
import dev.gpucomm.runtime.hostir.ir.ShareMemHandles;
import dev.gpucomm.runtime.hostir.ir.StartCoalescing;
import dev.gpucomm.runtime.hostir.ir.Statement;
import dev.gpucomm.runtime.hostir.ir.StreamRef;
import dev.gpucomm.runtime.hostir.ir.Synchronize;
import dev.gpucomm.runtime.hostir.ir.Tensor;
import dev.gpucomm.runtime.hostir.ir.Wait;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a program's statements into {@link Step}s: control flow, memory, streams and matmuls here,
 * communications in {@link CommunicationCompiler}. Everything that can be decided before a run
 * (slots of loop indices and stream variables, tensor sizes, matmul shapes, top-level memory) is
 * decided here, once.
 */
final class ProgramCompiler {
  private final CompileContext context;
  private final CommunicationCompiler communications;
  private final Set<Integer> inputIds;
  private final Map<Integer, DeviceBuffer> topLevelBuffers;
  private final Map<String, Integer> streamVariableSlots = new HashMap<>();
  private final Map<String, Integer> loopSlots = new HashMap<>();
  private MatmulLane matmulLane;

  /**
   * @param topLevelBuffers where the memory of top-level allocations is registered (the program's
   *     inputs are in it already)
   */
  ProgramCompiler(
      CompileContext context, Set<Integer> inputIds, Map<Integer, DeviceBuffer> topLevelBuffers) {
    this.context = context;
    this.communications = new CommunicationCompiler(context);
    this.inputIds = inputIds;
    this.topLevelBuffers = topLevelBuffers;
  }

  /** The program's body as one step. */
  Step compileProgram() {
    return block(context.program().body(), new CompileScope());
  }

  int loopSlotCount() {
    return loopSlots.size();
  }

  int streamVariableCount() {
    return streamVariableSlots.size();
  }

  private Step block(List<Statement> statements, CompileScope scope) {
    boolean[] sameStream = WaitAnalysis.waitsOnTheirOwnStream(statements);
    Step[] steps = new Step[statements.size()];
    for (int index = 0; index < statements.size(); index++) {
      steps[index] = statement(statements.get(index), scope, sameStream[index]);
    }
    return Step.sequence(steps);
  }

  private Step statement(Statement statement, CompileScope scope, boolean waitOnItsStream) {
    return switch (statement) {
      case Allocate allocate -> allocate(allocate, scope);
      case ForLoop loop -> loop(loop, scope);
      case IfThenElse branch -> branch(branch, scope);
      case GetCurrentStream get -> {
        int slot = streamVariableSlot(get.into().name());
        yield s -> s.streamVariables[slot] = s.current;
      }
      case SetCurrentStream set -> {
        StreamResolver resolver = resolver(set.stream(), scope);
        yield s -> s.current = resolver.resolve(s);
      }
      case Synchronize synchronize -> synchronize(synchronize, scope);
      case ShardByStream shard -> shard(shard, scope);
      case Copy copy -> traced("copy " + copy.out().name(), scope, copy(copy));
      case Matmul matmul -> traced("matmul " + matmul.out().name(), scope, matmul(matmul));
      case Communication communication ->
          traced(
              describe(communication), scope, communications.communication(communication, scope));
      case ShareMemHandles share -> communications.pointToPoint().share(share, scope);
      case Wait wait -> communications.waitFor(wait, waitOnItsStream);
      case StartCoalescing ignored -> communications.pointToPoint().startCoalescing();
      case EndCoalescing ignored -> communications.pointToPoint().endCoalescing();
    };
  }

  private Step branch(IfThenElse branch, CompileScope scope) {
    Condition condition = branch.condition();
    CompiledIndex left = CompiledIndex.of(condition.left(), scope.slots);
    CompiledIndex right = CompiledIndex.of(condition.right(), scope.slots);
    Step then = block(branch.then(), scope);
    Step otherwise = block(branch.otherwise(), scope);
    return s -> {
      if (left.value(s) == right.value(s)) {
        then.execute(s);
      } else {
        otherwise.execute(s);
      }
    };
  }

  private Step synchronize(Synchronize synchronize, CompileScope scope) {
    StreamResolver resolver = resolver(synchronize.stream(), scope);
    DeviceResources.EventsByStream events = context.resources().eventsByStream();
    return s -> {
      StreamSlot target = resolver.resolve(s);
      Stream current = s.current.stream();
      if (target.stream() != current) {
        // One event per target stream serves every execution: a wait takes the event as last
        // recorded when it is enqueued, so recording it again later changes nothing for it.
        Event event = events.on(target.stream());
        event.record(target.stream());
        current.waitFor(event);
      }
    };
  }

  private Step copy(Copy copy) {
    int out = copy.out().id();
    int in = copy.in().id();
    long bytes = copy.out().localBytes();
    String outName = copy.out().name();
    String inName = copy.in().name();
    return s ->
        context
            .device()
            .copy(s.tensor(out, outName), 0, s.tensor(in, inName), 0, bytes, s.current.stream());
  }

  private Step matmul(Matmul matmul) {
    int out = matmul.out().id();
    int a = matmul.a().id();
    int b = matmul.b().id();
    long m = matmul.m();
    long n = matmul.n();
    long k = matmul.k();
    DType dtype = matmul.out().dtype();
    String outName = matmul.out().name();
    String aName = matmul.a().name();
    String bName = matmul.b().name();
    dev.gpucomm.runtime.device.Matmul onMain = context.device().matmul();
    SmPartition partition = context.partition();
    // Worker streams run beside the communication of other iterations: their matmuls leave it the
    // SMs of the partition. The main stream has nothing beside it and keeps every SM.
    dev.gpucomm.runtime.device.Matmul onWorkers =
        partition.partitioned() ? onMain.limitedTo(partition.matmulMultiprocessors()) : onMain;
    // serializeMatmuls keeps the partitioned matmuls in one lane, so that they do not start
    // together and starve the communication between them of SMs (see MatmulLane).
    MatmulLane lane = partition.matmulsInOrder() ? matmulLane() : null;
    return s -> {
      boolean onWorker = s.current.workerIndex() >= 0;
      Stream stream = s.current.stream();
      if (onWorker && lane != null) {
        lane.enter(stream);
      }
      (onWorker ? onWorkers : onMain)
          .multiply(
              s.tensor(a, aName),
              s.tensor(b, bName),
              s.tensor(out, outName),
              m,
              n,
              k,
              dtype,
              false,
              stream);
      if (onWorker && lane != null) {
        lane.leave(stream);
      }
    };
  }

  /**
   * {@code step}, between two events of the run's {@link Timeline} when the run is traced: on the
   * stream it posts to, labelled with {@code what} and the values of the loop indices around it.
   */
  private static Step traced(String what, CompileScope scope, Step step) {
    List<Map.Entry<String, Integer>> indices =
        scope.slots.entrySet().stream().sorted(Map.Entry.comparingByValue()).toList();
    return s -> {
      Timeline timeline = s.timeline;
      if (timeline == null) {
        step.execute(s);
        return;
      }
      StreamSlot slot = s.current;
      int span = timeline.begin(label(what, indices, s), slot);
      step.execute(s);
      timeline.end(span, slot);
    };
  }

  private static String label(
      String what, List<Map.Entry<String, Integer>> indices, ExecutionState state) {
    if (indices.isEmpty()) {
      return what;
    }
    StringBuilder label = new StringBuilder(what).append('[');
    for (int index = 0; index < indices.size(); index++) {
      Map.Entry<String, Integer> loop = indices.get(index);
      label.append(index == 0 ? "" : ", ").append(loop.getKey()).append('=');
      label.append(state.loopIndices[loop.getValue()]);
    }
    return label.append(']').toString();
  }

  private static String describe(Communication communication) {
    return switch (communication) {
      case AllReduce allReduce -> "allreduce " + allReduce.output().name();
      case Allgather allgather -> "allgather " + allgather.output().name();
      case Broadcast broadcast -> "broadcast " + broadcast.output().name();
      case CollectivePermute permute -> "permute " + permute.output().name();
      case P2PCommunication p2p -> p2p.direction().printed() + " " + p2p.buffer().name();
    };
  }

  /** The one lane every partitioned matmul of this program goes through. */
  private MatmulLane matmulLane() {
    if (matmulLane == null) {
      matmulLane = new MatmulLane(context.resources());
    }
    return matmulLane;
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
        DeviceResources resources = context.resources();
        yield s -> resources.worker(Math.toIntExact(index.value(s)));
      }
    };
  }

  private Step loop(ForLoop loop, CompileScope scope) {
    String name = loop.index().name();
    if (scope.slots.containsKey(name)) {
      throw new IllegalArgumentException(
          "loop index " + name + " shadows the index of a loop around it");
    }
    CompiledIndex start = CompiledIndex.of(loop.start(), scope.slots);
    CompiledIndex stop = CompiledIndex.of(loop.stop(), scope.slots);
    // A later loop with the same index name (the join loop after a stream-parallel loop) reuses the
    // slot: indices are bound only inside their loop's body, so the two never overlap.
    int slot = loopSlots.computeIfAbsent(name, key -> loopSlots.size());
    scope.slots.put(name, slot);
    scope.enclosingSlots.add(slot);
    Step body;
    try {
      body = block(loop.body(), scope);
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

  private Step allocate(Allocate allocate, CompileScope scope) {
    Tensor tensor = allocate.tensor();
    int id = tensor.id();
    boolean shareable = context.analysis().shareableRoots.contains(id);
    if (inputIds.contains(id)) {
      throw new IllegalArgumentException(
          tensor.name() + " is a program input; it is not allocated");
    }
    DeviceResources resources = context.resources();
    if (scope.enclosingSlots.isEmpty()) {
      DeviceBuffer buffer = resources.allocate(tensor.localBytes(), shareable);
      topLevelBuffers.put(id, buffer);
      return s -> s.tensors[id] = buffer;
    }
    // Inside loops: one buffer per combination of the enclosing indices, so that iterations that
    // run at once on different streams never share one; created by the first run, reused after.
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

  private Step shard(ShardByStream shard, CompileScope scope) {
    int out = shard.out().id();
    int in = shard.in().id();
    String inName = shard.in().name();
    long chunks = shard.in().axes().get(shard.in().streamAxis()).extent();
    long chunkBytes = shard.out().localBytes();
    CompiledIndex index = CompiledIndex.of(shard.index(), scope.slots);
    // Views are made once per source buffer and chunk, so later runs allocate nothing.
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
}
