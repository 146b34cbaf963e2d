package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.StreamMemoryOperations;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.Tensor;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

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
 * of a communicator in flight. With an {@link SmPartition}, matmuls posted on worker streams run
 * limited to its matmul multiprocessors (the worker communicators' side of the split is {@link
 * StreamCommunicators}'s); matmuls on the main stream keep every SM.
 *
 * <p>Point-to-point communications with the IPC backend run the get protocol of {@link
 * IpcGetProtocol} when the device offers {@link StreamMemoryOperations}; otherwise, like those with
 * the NCCL backend, a send and the recv next to it (or the pairs of a coalescing group) are posted
 * together as one {@link Communicator#sendReceive} step. {@link #transports()} says which.
 */
public final class HostIrInterpreter implements AutoCloseable {
  private static final Duration DEFAULT_RENDEZVOUS_TIMEOUT = Duration.ofMinutes(5);

  private final Program program;
  private final DeviceResources resources;
  private final Set<String> transports = new LinkedHashSet<>();
  private final Map<Integer, DeviceBuffer> topLevelBuffers = new HashMap<>();
  private final ExecutionState state;
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
      Optional<StreamMemoryOperations> memoryOperations,
      SmPartition partition) {
    if (program.teamSize() != topology.worldSize()) {
      throw new IllegalArgumentException(
          "program is written for "
              + program.teamSize()
              + " ranks but the world has "
              + topology.worldSize());
    }
    this.program = program;
    this.resources = new DeviceResources(device);
    try {
      ProgramAnalysis analysis = new ProgramAnalysis(program, memoryOperations.isPresent());
      IpcGetProtocol ipc =
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
      CompileContext context =
          new CompileContext(
              program,
              analysis,
              device,
              resources,
              topology,
              communicators,
              partition,
              ipc,
              new PostRecord[analysis.maxCommunicationId + 1],
              WaitAnalysis.crossStreamWaits(program.body()),
              transports);
      Set<Integer> inputIds = new HashSet<>();
      for (Tensor input : program.inputs()) {
        topLevelBuffers.put(
            input.id(),
            resources.allocate(input.localBytes(), analysis.shareableRoots.contains(input.id())));
        inputIds.add(input.id());
      }
      ProgramCompiler compiler = new ProgramCompiler(context, inputIds, topLevelBuffers);
      this.body = compiler.compileProgram();
      this.state =
          new ExecutionState(
              topology.rank(),
              Math.max(1, compiler.loopSlotCount()),
              analysis.maxTensorId + 1,
              Math.max(1, compiler.streamVariableCount()));
      for (Tensor input : program.inputs()) {
        state.tensors[input.id()] = topLevelBuffers.get(input.id());
      }
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
    return create(
        program,
        device,
        communicators,
        store,
        topology,
        rendezvousTimeout,
        memoryOperations,
        SmPartition.NONE);
  }

  /**
   * An interpreter whose matmuls on worker streams run on the matmul side of {@code partition};
   * {@code communicators} should limit their worker communicators to its communication side.
   */
  public static HostIrInterpreter create(
      Program program,
      Device device,
      StreamCommunicators communicators,
      KeyValueStore store,
      RankTopology topology,
      Duration rendezvousTimeout,
      Optional<StreamMemoryOperations> memoryOperations,
      SmPartition partition) {
    return new HostIrInterpreter(
        program,
        device,
        communicators,
        store,
        topology,
        rendezvousTimeout,
        memoryOperations,
        partition);
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

  /**
   * Runs the program twice more with device events around every matmul, copy and communication, and
   * returns when and on which stream each ran in the second run: the timeline of one run. The first
   * run creates the events, so that the second posts its work as fast as an untraced run. Recording
   * the events costs a little device time, so traced runs are kept apart from timed ones. {@code
   * beforeRun} queues what each run should follow on {@code stream} (e.g. a rank alignment).
   */
  public List<TimelineSpan> runTraced(Stream stream, Consumer<Stream> beforeRun) {
    checkOpen();
    try (Timeline timeline = new Timeline(resources.device())) {
      state.timeline = timeline;
      try {
        for (int run = 0; run < 2; run++) {
          beforeRun.accept(stream);
          timeline.start(stream);
          run(stream);
          synchronize(stream);
        }
      } finally {
        state.timeline = null;
      }
      return timeline.spans();
    }
  }

  /**
   * Blocks until the work of the runs enqueued so far is done, and reports a failure of any stream
   * the program used: {@code main} first (everything joins it), then every worker stream, whose
   * failures a wait on main alone would not surface on every backend.
   */
  public void synchronize(Stream main) {
    checkOpen();
    main.synchronize();
    resources.synchronizeWorkers();
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
}
