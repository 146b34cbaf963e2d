package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.report.Measurement;
import dev.gpucomm.api.v1alpha1.report.NotMeasured;
import dev.gpucomm.api.v1alpha1.report.RankTiming;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.FusedAllReduce;
import dev.gpucomm.runtime.collective.FusedBuffers;
import dev.gpucomm.runtime.collective.NormEpilogue;
import dev.gpucomm.runtime.collective.OwnTimeMeter;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.ComputeCapability;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Graph;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.heuristic.AlgorithmHeuristic;
import dev.gpucomm.runtime.heuristic.Decision;
import dev.gpucomm.runtime.heuristic.SizeQuery;
import dev.gpucomm.runtime.numeric.ElementCodec;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import dev.gpucomm.runtime.rendezvous.RankZeroChoice;
import dev.gpucomm.runtime.report.HumanUnits;
import dev.gpucomm.runtime.report.ProgressDisplay;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Runs a {@link SweepPlan} on one rank: for each size and algorithm, fresh random inputs, a
 * validated first call, warm-up, timed eager calls, a second validation, then (when asked and the
 * device can capture) the same for calls captured in a graph. Rank 0 gathers every rank's medians
 * and returns one {@link SizeResult} per size; a wrong result anywhere fails the sweep. A size that
 * some rank cannot hold (host memory, device memory) is skipped by every rank together and reported
 * as not measured, with the reason, and the sweep goes on.
 *
 * <p>Outputs are poisoned (all bits set: NaN in every dtype) before each validated call, so an
 * element a kernel never writes cannot pass. An in-place sweep's output is its input, so each
 * validated call runs on a fresh upload of the input instead (an element never written keeps this
 * rank's input, not the sum), and its timed calls sum the previous call's sums, as PyTorch's and
 * nccl-tests' in-place loops do: the values grow until they overflow, which costs no time. The
 * timed loops allocate nothing: the call is a lambda bound once to the size's buffers, events and
 * result arrays exist before timing starts.
 *
 * <p>A plan with a fused pattern runs all-reduce + residual + RMSNorm ({@link FusedAllReduce}) on
 * five buffers per point (input, residual, γ, updated residual, output), both outputs poisoned and
 * validated against the float64 reference of the whole pattern ({@link FusedResultValidator}). An
 * algorithm that cannot run a point's shape (or that the heuristic chose but does not fuse) is
 * reported as not measured at that point, with the reason.
 */
public final class BenchmarkSweep {
  /** Calls captured per graph (fewer when fewer are timed); a replay's time is divided by it. */
  static final int CALLS_PER_GRAPH = 10;

  /** The most the CPU backend warms up an algorithm at the first size it is timed at. */
  static final Duration FIRST_POINT_BUDGET = Duration.ofSeconds(3);

  /** The most the CPU backend warms up an algorithm at a later size, and a graph's replays. */
  static final Duration POINT_BUDGET = Duration.ofSeconds(1);

  /** Root of broadcasts. */
  static final int BROADCAST_ROOT = 0;

  private static final byte POISON = (byte) 0xFF;

  /** Store barrier before an in-place input is uploaded again (rounds count per name). */
  private static final String IN_PLACE_BARRIER = "sweep/in-place-upload";

  private final Device device;
  private final Communicator communicator;
  private final KeyValueStore store;
  private final RankTopology topology;
  private final AlgorithmHeuristic heuristic;
  private final ProgressDisplay progress;
  private final Duration peerTimeout;
  private final Stream stream;

  /**
   * Whether only the results count (selftest): no warm-up until times settle, a short first one.
   */
  private final boolean checkingOnly;

  /** Null where the backend does not measure its ranks' own time (CUDA: NCCL waits on the GPU). */
  private final OwnTimeMeter ownTime;

  public BenchmarkSweep(
      Device device,
      Communicator communicator,
      KeyValueStore store,
      AlgorithmHeuristic heuristic,
      ProgressDisplay progress,
      Duration peerTimeout) {
    this.device = device;
    this.communicator = communicator;
    this.store = store;
    this.topology = communicator.topology();
    this.heuristic = heuristic;
    this.progress = progress;
    this.peerTimeout = peerTimeout;
    this.stream = device.defaultStream();
    this.checkingOnly = false;
    this.ownTime = communicator instanceof OwnTimeMeter meter ? meter : null;
  }

  private BenchmarkSweep(BenchmarkSweep sweep, boolean checkingOnly) {
    this.device = sweep.device;
    this.communicator = sweep.communicator;
    this.store = sweep.store;
    this.topology = sweep.topology;
    this.heuristic = sweep.heuristic;
    this.progress = sweep.progress;
    this.peerTimeout = sweep.peerTimeout;
    this.stream = sweep.stream;
    this.checkingOnly = checkingOnly;
    this.ownTime = sweep.ownTime;
  }

  /**
   * This sweep without the CPU backend's warm-up until times settle, and with a first-point warm-up
   * of bounded bytes ({@link FirstPointWarmup#checkingCalls}), for sweeps that check results and
   * whose times nobody reads (selftest): either warm-up costs seconds per algorithm and plan.
   */
  BenchmarkSweep checkingOnly() {
    return new BenchmarkSweep(this, true);
  }

  /** What a sweep found: per size on rank 0 (empty on other ranks), and whether graphs ran. */
  public record Outcome(
      List<SizeResult> sizes,
      List<RankTiming> rankTimings,
      boolean graphsTimed,
      String graphNote) {}

  /**
   * Runs the sweep; {@code name} keys this sweep's results in the store (unique within a job).
   *
   * @throws ResultMismatchException when any rank's output of any call is wrong (on that rank)
   */
  public Outcome run(SweepPlan plan, String name) {
    Set<Algorithm> available =
        CollectiveAlgorithms.available(communicator, plan.collective(), plan.inPlace());
    Optional<ComputeCapability> computeCapability = rankZerosComputeCapability(name);
    List<Decision> decisions = new ArrayList<>();
    for (SweepPoint point : plan.points()) {
      Decision decision = heuristic.choose(query(plan, point, available, computeCapability));
      // the heuristics know only what is available, not why: in place is the why
      decisions.add(
          plan.inPlace()
              ? new Decision(decision.algorithm(), "in place: " + decision.reason())
              : decision);
    }
    Measurer measurer = new Measurer(plan, name);
    try (measurer) {
      for (int p = 0; p < plan.points().size(); p++) {
        List<Algorithm> algorithms = new ArrayList<>(plan.algorithms());
        Algorithm chosen = decisions.get(p).algorithm();
        if (plan.measureAuto() && !algorithms.contains(chosen)) {
          algorithms.add(chosen);
        }
        measurer.measureSize(p, algorithms);
      }
    } finally {
      progress.finish();
    }
    FigureGather.Gathered gathered =
        FigureGather.gather(
            store,
            name + "/figures",
            topology.rank(),
            topology.worldSize(),
            measurer.figures,
            peerTimeout);
    if (topology.rank() != 0) {
      return new Outcome(List.of(), List.of(), measurer.graphs, measurer.graphNote);
    }
    return new Outcome(
        sizeResults(plan, decisions, gathered.merged(), measurer.notMeasured),
        rankTimings(plan, gathered.perRank()),
        plan.graphs() && measurer.graphs,
        measurer.graphNote);
  }

  /**
   * Measures one plan point by point, keeping what every point reuses: the timer's events, the
   * arrays the timed calls' results go into, the validator's scratch, and whether graphs work.
   */
  private final class Measurer implements AutoCloseable {
    private final SweepPlan plan;
    private final String name;
    private final ElementCodec codec;
    private final InputData inputs;
    private final ResultValidator validator;
    private final FusedResultValidator fusedValidator;
    private final CallTimer timer;
    private final double[] eagerTimes;
    private final int callsPerGraph;
    private final int replays;
    private final double[] graphTimes;
    private final List<PointFigures> figures = new ArrayList<>();
    private final Map<Integer, List<NotMeasured>> notMeasured = new LinkedHashMap<>();
    private final RankAgreement agreement;
    private final HostMemory hostMemory = HostMemory.system();
    private final Set<Algorithm> warmedUp = EnumSet.noneOf(Algorithm.class);

    /**
     * Whether warm-up goes on until the time per call settles: on the CPU backend, where the JIT
     * sets when that happens. GPUs keep the fixed counts of {@link FirstPointWarmup}.
     */
    private final boolean settlesByTime;

    private final SteadyStateWarmup steadyState;
    private boolean graphs;
    private String graphNote;

    Measurer(SweepPlan plan, String name) {
      this.plan = plan;
      this.name = name;
      this.codec = ElementCodec.of(plan.dtype());
      this.inputs = new InputData(plan.seed());
      this.validator =
          new ResultValidator(
              inputs,
              plan.dtype(),
              topology.worldSize(),
              topology.localWorldSize(),
              topology.rank());
      this.fusedValidator =
          plan.fused()
              ? new FusedResultValidator(
                  inputs, plan.dtype(), topology.worldSize(), topology.rank(), plan.epilogue())
              : null;
      this.eagerTimes = new double[plan.iterations()];
      this.callsPerGraph = Math.min(CALLS_PER_GRAPH, plan.iterations());
      this.replays = Math.max(1, plan.iterations() / callsPerGraph);
      this.graphTimes = new double[replays];
      this.graphs = plan.graphs();
      this.graphNote = graphs ? "" : "graphs not requested";
      this.timer = new CallTimer(device);
      this.agreement = new RankAgreement(store, topology.rank(), topology.worldSize(), peerTimeout);
      this.settlesByTime = !checkingOnly && device.kind() != DeviceKind.CUDA;
      this.steadyState = new SteadyStateWarmup(timer, store, topology.worldSize(), peerTimeout);
    }

    /**
     * Why this rank cannot hold point {@code p}'s buffers: the host copies of input and output (and
     * on the CPU device the buffers themselves) beyond this rank's share of the host memory
     * available now; empty when it can.
     */
    private Optional<String> hostMemoryRefusal(CollectiveShape shape) {
      return hostMemoryRefusal(shape.inputBytes() + shape.outputBytes());
    }

    /** As {@link #hostMemoryRefusal(CollectiveShape)}, for {@code hostBytes} of host copies. */
    private Optional<String> hostMemoryRefusal(long hostBytes) {
      long needed = device.kind() == DeviceKind.CPU ? 2 * hostBytes : hostBytes;
      OptionalLong available = hostMemory.availableBytes();
      if (available.isEmpty()) {
        return Optional.empty();
      }
      long share = available.getAsLong() / topology.localWorldSize();
      if (needed <= share) {
        return Optional.empty();
      }
      return Optional.of(
          "needs "
              + HumanUnits.binaryBytes(needed)
              + " of host memory, its share of the "
              + HumanUnits.binaryBytes(available.getAsLong())
              + " available to "
              + HumanUnits.count(topology.localWorldSize(), "rank")
              + " is "
              + HumanUnits.binaryBytes(share));
    }

    /** Records every algorithm of point {@code p} as not measured, for {@code reason}. */
    private void skip(int p, List<Algorithm> algorithms, String reason) {
      List<NotMeasured> skipped = notMeasured.computeIfAbsent(p, k -> new ArrayList<>());
      for (Algorithm algorithm : algorithms) {
        skipped.add(new NotMeasured(algorithm, reason));
      }
    }

    /** Every algorithm at point {@code p}, on buffers allocated once for the point. */
    void measureSize(int p, List<Algorithm> algorithms) {
      if (plan.fused()) {
        measureFusedSize(p, algorithms);
        return;
      }
      SweepPoint point = plan.points().get(p);
      CollectiveShape shape =
          new CollectiveShape(plan.collective(), point.bytes(), topology.worldSize());
      Optional<String> refusal =
          agreement.refusal(name + "/host-memory/" + p, hostMemoryRefusal(shape));
      if (refusal.isPresent()) {
        skip(p, algorithms, refusal.get());
        return;
      }
      DeviceBuffer input = null;
      DeviceBuffer separateOutput = null;
      Optional<String> allocationFailure = Optional.empty();
      try {
        input = device.allocate(shape.inputBytes());
        separateOutput = plan.inPlace() ? null : device.allocate(shape.outputBytes());
      } catch (RuntimeException | OutOfMemoryError e) {
        allocationFailure =
            Optional.of(
                "cannot allocate "
                    + HumanUnits.binaryBytes(shape.inputBytes() + shape.outputBytes())
                    + " of "
                    + device.kind()
                    + " memory ("
                    + e.getMessage()
                    + ")");
      }
      refusal = agreement.refusal(name + "/device-memory/" + p, allocationFailure);
      if (refusal.isPresent()) {
        if (separateOutput != null) {
          separateOutput.close();
        }
        if (input != null) {
          input.close();
        }
        skip(p, algorithms, refusal.get());
        return;
      }
      measureSize(p, algorithms, point, shape, input, separateOutput);
    }

    private void measureSize(
        int p,
        List<Algorithm> algorithms,
        SweepPoint point,
        CollectiveShape shape,
        DeviceBuffer allocatedInput,
        DeviceBuffer allocatedOutput) {
      try (DeviceBuffer input = allocatedInput;
          DeviceBuffer separateOutput = allocatedOutput;
          Arena arena = Arena.ofConfined()) {
        DeviceBuffer output = plan.inPlace() ? input : separateOutput;
        MemorySegment hostInput = arena.allocate(shape.inputBytes(), 64);
        MemorySegment hostOutput = arena.allocate(shape.outputBytes(), 64);
        for (int a = 0; a < algorithms.size(); a++) {
          Algorithm algorithm = algorithms.get(a);
          progress.measuring(p + 1, plan.points().size(), point.bytes(), algorithm);
          // Fresh inputs per size and algorithm; the index keys them (fewer than 16 algorithms).
          int pointIndex = p * 16 + a;
          inputs.fill(
              hostInput, codec, topology.rank(), pointIndex, shape.inputBytes() / codec.bytes());
          device.upload(hostInput, input, 0);
          Runnable call = bind(plan, algorithm, input, output, point.bytes() / codec.bytes());
          ValidatedRun run =
              new ValidatedRun(
                  shape,
                  algorithm,
                  pointIndex,
                  call,
                  plan.inPlace() ? hostInput : null,
                  output,
                  hostOutput,
                  validator);
          PointFigures measured = measure(algorithm, point.bytes(), pointIndex, call, run);
          figures.add(measured);
          progress.measured(
              p + 1,
              plan.points().size(),
              point.bytes(),
              algorithm,
              measured.graphMicros() != null ? measured.graphMicros() : measured.eagerMicros());
        }
      }
    }

    /**
     * Every algorithm at point {@code p} of a fused plan, on the five buffers of the pattern
     * allocated once for the point; the residual and γ are the same on every rank.
     */
    private void measureFusedSize(int p, List<Algorithm> algorithms) {
      SweepPoint point = plan.points().get(p);
      NormEpilogue epilogue = plan.epilogue();
      long rowBytes = (long) epilogue.hiddenSize() * codec.bytes();
      if (point.bytes() % rowBytes != 0) {
        skip(
            p,
            algorithms,
            "%d bytes is not a whole number of rows of %d elements, which RMSNorm needs"
                .formatted(point.bytes(), epilogue.hiddenSize()));
        return;
      }
      long tokens = point.bytes() / rowBytes;
      long outputBytes = tokens * epilogue.hiddenSize() * epilogue.outputElementBytes(plan.dtype());
      long[] sizes = {point.bytes(), point.bytes(), rowBytes, point.bytes(), outputBytes};
      long totalBytes = 0;
      for (long size : sizes) {
        totalBytes += size;
      }
      Optional<String> refusal =
          agreement.refusal(name + "/host-memory/" + p, hostMemoryRefusal(totalBytes));
      if (refusal.isPresent()) {
        skip(p, algorithms, refusal.get());
        return;
      }
      List<DeviceBuffer> allocated = new ArrayList<>();
      Optional<String> allocationFailure = Optional.empty();
      try {
        for (long size : sizes) {
          allocated.add(device.allocate(size));
        }
      } catch (RuntimeException | OutOfMemoryError e) {
        allocationFailure =
            Optional.of(
                "cannot allocate "
                    + HumanUnits.binaryBytes(totalBytes)
                    + " of "
                    + device.kind()
                    + " memory ("
                    + e.getMessage()
                    + ")");
      }
      refusal = agreement.refusal(name + "/device-memory/" + p, allocationFailure);
      try (Arena arena = Arena.ofConfined()) {
        if (refusal.isPresent()) {
          skip(p, algorithms, refusal.get());
          return;
        }
        FusedBuffers buffers =
            new FusedBuffers(
                allocated.get(0),
                allocated.get(1),
                allocated.get(2),
                allocated.get(3),
                allocated.get(4));
        MemorySegment hostInput = arena.allocate(point.bytes(), 64);
        MemorySegment hostResidual = arena.allocate(point.bytes(), 64);
        MemorySegment hostGamma = arena.allocate(rowBytes, 64);
        MemorySegment hostResidualOut = arena.allocate(point.bytes(), 64);
        MemorySegment hostOutput = arena.allocate(outputBytes, 64);
        FusedAllReduce fused = (FusedAllReduce) communicator;
        for (int a = 0; a < algorithms.size(); a++) {
          Algorithm algorithm = algorithms.get(a);
          Optional<String> cannot =
              fused.fusedAllReduceAlgorithms().contains(algorithm)
                  ? fused.fusedRefusal(algorithm, tokens, plan.dtype(), epilogue)
                  : Optional.of(
                      algorithm.wireName()
                          + " does not run "
                          + epilogue.pattern().wireName()
                          + " on the "
                          + device.kind()
                          + " device");
          if (cannot.isPresent()) {
            skip(p, List.of(algorithm), cannot.get());
            continue;
          }
          progress.measuring(p + 1, plan.points().size(), point.bytes(), algorithm);
          int pointIndex = p * 16 + a;
          long count = point.bytes() / codec.bytes();
          int world = topology.worldSize();
          inputs.fill(hostInput, codec, topology.rank(), pointIndex, count);
          inputs.fill(
              hostResidual, codec, FusedResultValidator.residualSource(world), pointIndex, count);
          inputs.fill(
              hostGamma,
              codec,
              FusedResultValidator.gammaSource(world),
              pointIndex,
              epilogue.hiddenSize());
          device.upload(hostInput, buffers.input(), 0);
          device.upload(hostResidual, buffers.residualIn(), 0);
          device.upload(hostGamma, buffers.gamma(), 0);
          Runnable call =
              () ->
                  fused.allReduceResidualRmsNorm(
                      algorithm, buffers, tokens, plan.dtype(), epilogue, stream);
          FusedValidatedRun run =
              new FusedValidatedRun(
                  algorithm,
                  pointIndex,
                  tokens,
                  call,
                  buffers,
                  hostResidualOut,
                  hostOutput,
                  fusedValidator);
          PointFigures measured = measure(algorithm, point.bytes(), pointIndex, call, run);
          figures.add(measured);
          progress.measured(
              p + 1,
              plan.points().size(),
              point.bytes(),
              algorithm,
              measured.graphMicros() != null ? measured.graphMicros() : measured.eagerMicros());
        }
      } finally {
        for (int i = allocated.size() - 1; i >= 0; i--) {
          allocated.get(i).close();
        }
      }
    }

    /** Validate, warm up, time eagerly, then validate again and time the graph replays. */
    private PointFigures measure(
        Algorithm algorithm, long bytes, int pointIndex, Runnable call, CheckedRun run) {
      double relativeError = run.check();
      int warmup = plan.warmupIterations();
      boolean firstPoint = warmedUp.add(algorithm);
      if (firstPoint) {
        warmup +=
            checkingOnly
                ? FirstPointWarmup.checkingCalls(device.kind(), bytes)
                : FirstPointWarmup.calls(device.kind(), bytes);
      }
      String key = name + "/warmup/" + pointIndex;
      for (int w = 0; w < warmup; w++) {
        call.run();
      }
      if (settlesByTime) {
        steadyState.run(
            call, stream, bytes, firstPoint ? FIRST_POINT_BUDGET : POINT_BUDGET, key + "/eager");
      }
      stream.synchronize();
      store.barrier(name + "/timing", topology.worldSize(), peerTimeout);
      // The store lets the ranks go a host round trip apart, far longer than a small call; one
      // untimed call waits for the last rank, so the first timed sample does not hold that skew.
      // With few iterations it would be the only sample, and small calls read several times their
      // time (bench/results/2026-11-25-2xH100-host-path-trial/).
      long ownNanosBefore = ownTime == null ? 0 : ownTime.ownNanos();
      call.run();
      timer.timeCalls(call, stream, replays, callsPerGraph, eagerTimes);
      double eagerMicros = CallTimer.median(eagerTimes, replays);
      double eagerSpreadMicros = CallTimer.interquartileRange(eagerTimes, replays);
      // A mean over the calls, where the times per call take a median: a rank slowed in bursts (a
      // CPU quota throttles a process for part of each period) stretches only the calls the
      // bursts hit, which the median passes over. The untimed call above counts as one more: the
      // meter cannot leave it out, and it is a call like the others. timeCalls returned after its
      // last event, so every one of these calls is done.
      int ownCalls = replays * callsPerGraph + 1;
      Double ownMicros =
          ownTime == null ? null : (ownTime.ownNanos() - ownNanosBefore) / 1e3 / ownCalls;

      // The second validation comes after the timed calls, so that a kernel that corrupts its
      // input over repeated calls is caught: the graph replay's when graphs run, else eager.
      Graph graph = graphs ? capture(call, callsPerGraph) : null;
      if (graphs && graph == null) {
        graphs = false;
        graphNote = "the " + device.kind() + " device cannot capture graphs";
      }
      Double graphMicros = null;
      if (graph == null) {
        relativeError = Math.max(relativeError, run.check());
      } else {
        try (graph) {
          relativeError = Math.max(relativeError, run.checkReplay(graph));
          store.barrier(name + "/graph", topology.worldSize(), peerTimeout);
          if (settlesByTime) {
            // A replay queues its kernels in one go, a path the eager calls did not warm.
            steadyState.run(
                () -> graph.replay(stream), stream, bytes, POINT_BUDGET, key + "/graph");
            store.barrier(name + "/graph", topology.worldSize(), peerTimeout);
          }
          graph.replay(stream); // as for the eager calls: absorbs the ranks' skew untimed
          timer.timeReplays(graph, stream, replays, callsPerGraph, graphTimes);
          graphMicros = CallTimer.median(graphTimes, replays);
        }
      }
      return new PointFigures(
          pointIndex,
          algorithm,
          eagerMicros,
          graphMicros,
          relativeError,
          topology.rank(),
          eagerSpreadMicros,
          ownMicros);
    }

    @Override
    public void close() {
      timer.close();
    }
  }

  /**
   * The compute capability the heuristics see: rank 0's on every rank. vLLM's table is chosen by
   * it, every rank must choose the same algorithm for a size, and the GPUs of one pod can be of two
   * generations.
   */
  private Optional<ComputeCapability> rankZerosComputeCapability(String name) {
    String agreed =
        RankZeroChoice.agree(
            store,
            name + "/compute-capability",
            topology.rank(),
            peerTimeout,
            () -> device.computeCapability().map(ComputeCapability::toString).orElse(""));
    return agreed.isEmpty() ? Optional.empty() : Optional.of(ComputeCapability.parse(agreed));
  }

  /**
   * One-shot and two-shot stay available above the peer buffers (they run in passes there); the
   * query carries the buffers' size, so that the published rules, which have no passes, can send
   * such a message to NCCL as upstream does, while a measured table decides by its curve.
   */
  private SizeQuery query(
      SweepPlan plan,
      SweepPoint point,
      Set<Algorithm> available,
      Optional<ComputeCapability> computeCapability) {
    return new SizeQuery(
        plan.collective(),
        point.bytes(),
        point.tokens() == null ? OptionalInt.empty() : OptionalInt.of(point.tokens()),
        plan.hiddenSize(),
        plan.dtype(),
        topology.worldSize(),
        topology.localWorldSize(),
        computeCapability,
        available,
        communicator.maxPeerMemoryBytes(plan.collective()),
        communicator.podLink());
  }

  /** The call for one algorithm, bound once to this size's buffers. */
  private Runnable bind(
      SweepPlan plan, Algorithm algorithm, DeviceBuffer in, DeviceBuffer out, long count) {
    return switch (plan.collective()) {
      case ALLREDUCE ->
          () -> communicator.allReduce(algorithm, in, out, count, plan.dtype(), stream);
      case ALLGATHER ->
          () -> communicator.allGather(algorithm, in, out, count, plan.dtype(), stream);
      case REDUCESCATTER ->
          () -> communicator.reduceScatter(algorithm, in, out, count, plan.dtype(), stream);
      case BROADCAST ->
          () ->
              communicator.broadcast(
                  algorithm, in, out, count, plan.dtype(), BROADCAST_ROOT, stream);
      case COLLECTIVEPERMUTE ->
          () -> communicator.collectivePermute(in, out, count, plan.dtype(), stream);
    };
  }

  /** Captures {@code calls} calls; null when the device cannot capture. */
  private Graph capture(Runnable call, int calls) {
    try {
      return device.capture(
          stream,
          () -> {
            for (int i = 0; i < calls; i++) {
              call.run();
            }
          });
    } catch (UnsupportedOperationException e) {
      return null;
    }
  }

  /** A call whose result can be checked after an eager call or after a graph replay. */
  private interface CheckedRun {
    /** Runs the call once and validates its result; returns the largest relative error. */
    double check();

    /** Replays {@code timedGraph} (or a graph of one call) and validates its result. */
    double checkReplay(Graph timedGraph);
  }

  /**
   * Poisons the output (or, in place, uploads the input again), runs the call (or a replay),
   * downloads and validates.
   */
  private final class ValidatedRun implements CheckedRun {
    private final CollectiveShape shape;
    private final Algorithm algorithm;
    private final int pointIndex;
    private final Runnable call;
    private final MemorySegment inPlaceInput;
    private final DeviceBuffer output;
    private final MemorySegment hostOutput;
    private final ResultValidator validator;

    ValidatedRun(
        CollectiveShape shape,
        Algorithm algorithm,
        int pointIndex,
        Runnable call,
        MemorySegment inPlaceInput,
        DeviceBuffer output,
        MemorySegment hostOutput,
        ResultValidator validator) {
      this.shape = shape;
      this.algorithm = algorithm;
      this.pointIndex = pointIndex;
      this.call = call;
      this.inPlaceInput = inPlaceInput;
      this.output = output;
      this.hostOutput = hostOutput;
      this.validator = validator;
    }

    @Override
    public double check() {
      prepareOutput();
      call.run();
      return downloadAndValidate();
    }

    /**
     * Validates a replay. In place, the timed graph's calls each sum the previous one's result, so
     * a graph of one captured call is replayed on a fresh input instead.
     */
    @Override
    public double checkReplay(Graph timedGraph) {
      prepareOutput();
      if (inPlaceInput == null) {
        timedGraph.replay(stream);
      } else {
        try (Graph once = capture(call, 1)) {
          once.replay(stream);
        }
      }
      return downloadAndValidate();
    }

    private void prepareOutput() {
      if (inPlaceInput == null) {
        device.fill(output, 0, shape.outputBytes(), POISON, stream);
        return;
      }
      // Every rank's earlier calls on this buffer must be over: a peer may still read it.
      stream.synchronize();
      store.barrier(IN_PLACE_BARRIER, topology.worldSize(), peerTimeout);
      device.upload(inPlaceInput, output, 0);
    }

    private double downloadAndValidate() {
      device.download(output, 0, hostOutput, stream);
      return validator.validate(shape, algorithm, pointIndex, hostOutput);
    }
  }

  /**
   * Poisons both outputs of a fused call, runs it (or replays the timed graph: every captured call
   * writes the same outputs from the same inputs), downloads both and validates them.
   */
  private final class FusedValidatedRun implements CheckedRun {
    private final Algorithm algorithm;
    private final int pointIndex;
    private final long tokens;
    private final Runnable call;
    private final FusedBuffers buffers;
    private final MemorySegment hostResidualOut;
    private final MemorySegment hostOutput;
    private final FusedResultValidator validator;

    FusedValidatedRun(
        Algorithm algorithm,
        int pointIndex,
        long tokens,
        Runnable call,
        FusedBuffers buffers,
        MemorySegment hostResidualOut,
        MemorySegment hostOutput,
        FusedResultValidator validator) {
      this.algorithm = algorithm;
      this.pointIndex = pointIndex;
      this.tokens = tokens;
      this.call = call;
      this.buffers = buffers;
      this.hostResidualOut = hostResidualOut;
      this.hostOutput = hostOutput;
      this.validator = validator;
    }

    @Override
    public double check() {
      poison();
      call.run();
      return downloadAndValidate();
    }

    @Override
    public double checkReplay(Graph timedGraph) {
      poison();
      timedGraph.replay(stream);
      return downloadAndValidate();
    }

    private void poison() {
      device.fill(buffers.residualOut(), 0, hostResidualOut.byteSize(), POISON, stream);
      device.fill(buffers.output(), 0, hostOutput.byteSize(), POISON, stream);
    }

    private double downloadAndValidate() {
      device.download(buffers.residualOut(), 0, hostResidualOut, stream);
      device.download(buffers.output(), 0, hostOutput, stream);
      return validator.validate(algorithm, pointIndex, tokens, hostResidualOut, hostOutput);
    }
  }

  /** Every rank's eager median, spread and own time, keyed by size rather than point index. */
  private static List<RankTiming> rankTimings(SweepPlan plan, List<PointFigures> perRank) {
    List<RankTiming> timings = new ArrayList<>();
    for (PointFigures figures : perRank) {
      SweepPoint point = plan.points().get(figures.pointIndex() / 16);
      timings.add(
          new RankTiming(
              point.bytes(),
              figures.algorithm(),
              figures.rank(),
              figures.eagerMicros(),
              figures.eagerSpreadMicros(),
              figures.ownMicros()));
    }
    return timings;
  }

  private List<SizeResult> sizeResults(
      SweepPlan plan,
      List<Decision> decisions,
      List<PointFigures> merged,
      Map<Integer, List<NotMeasured>> notMeasured) {
    Map<Integer, List<PointFigures>> byPoint = new LinkedHashMap<>();
    for (PointFigures figures : merged) {
      byPoint.computeIfAbsent(figures.pointIndex() / 16, k -> new ArrayList<>()).add(figures);
    }
    List<SizeResult> sizes = new ArrayList<>();
    for (int p = 0; p < plan.points().size(); p++) {
      SweepPoint point = plan.points().get(p);
      CollectiveShape shape =
          new CollectiveShape(plan.collective(), point.bytes(), topology.worldSize());
      List<Measurement> measurements = new ArrayList<>();
      for (PointFigures figures : byPoint.getOrDefault(p, List.of())) {
        // Reports rank by graph replay where measured (Measurement#bestMicros): so do bandwidths.
        double best = figures.graphMicros() != null ? figures.graphMicros() : figures.eagerMicros();
        double algBandwidth = shape.algorithmBytes() / best / 1e3; // bytes/µs → GB/s
        measurements.add(
            new Measurement(
                figures.algorithm(),
                figures.eagerMicros(),
                figures.graphMicros(),
                algBandwidth,
                algBandwidth * shape.busFactor(),
                figures.maxRelativeError(),
                plan.iterations()));
      }
      Decision decision = decisions.get(p);
      sizes.add(
          new SizeResult(
              point.bytes(),
              point.tokens(),
              decision.algorithm(),
              decision.reason(),
              measurements,
              notMeasured.getOrDefault(p, List.of())));
    }
    return sizes;
  }
}
