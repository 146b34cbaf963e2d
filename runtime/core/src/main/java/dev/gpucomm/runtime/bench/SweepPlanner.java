package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.AllReducePattern;
import dev.gpucomm.api.v1alpha1.BenchmarkSpec;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.TuneSpec;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.FusedAllReduce;
import dev.gpucomm.runtime.collective.NormEpilogue;
import dev.gpucomm.runtime.spec.InvalidJobException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Turns a job's benchmark or tune section into a {@link SweepPlan} for this communicator: resolves
 * the default algorithms, and rejects (naming the job field) an algorithm the device does not have.
 * Every size runs with every algorithm (the peer-memory ones run large calls through their buffers
 * in passes). Every rank plans identically, so a rejection is reported by all and the job stops
 * before any device work.
 */
public final class SweepPlanner {
  private final String source;
  private final DeviceKind device;
  private final Communicator communicator;

  /**
   * @param source the job file, as errors name it
   * @param communicator the rank's communicator: which algorithms it has
   */
  public SweepPlanner(String source, DeviceKind device, Communicator communicator) {
    this.source = source;
    this.device = device;
    this.communicator = communicator;
  }

  public SweepPlan plan(BenchmarkSpec benchmark, long seed) {
    Collective collective = benchmark.getCollective();
    String at = "spec.workload.benchmark";
    AllReducePattern pattern = benchmark.getPattern();
    if (pattern != null && pattern.normalizes()) {
      return fusedPlan(benchmark, pattern, seed);
    }
    List<SweepPoint> points =
        points(
            at,
            benchmark.getTokens(),
            benchmark.getSizes(),
            benchmark.getHiddenSize(),
            benchmark.getDtype());
    List<Algorithm> listed = benchmark.getAlgorithms();
    boolean measureAuto = listed == null || listed.contains(Algorithm.AUTO);
    boolean inPlace = Boolean.TRUE.equals(benchmark.getInPlace());
    List<Algorithm> algorithms =
        listed == null
            ? CollectiveAlgorithms.inReportOrder(
                CollectiveAlgorithms.available(communicator, collective, inPlace))
            : checked(at + ".algorithms", listed, collective, inPlace);
    return new SweepPlan(
        benchmark.getCollective(),
        benchmark.getDtype(),
        benchmark.getHiddenSize(),
        points,
        algorithms,
        measureAuto,
        benchmark.getWarmupIterations(),
        benchmark.getIterations(),
        benchmark.getCudaGraph(),
        inPlace,
        seed,
        at + ".algorithms");
  }

  /**
   * A sweep of all-reduce with a fused residual-add + RMSNorm pattern, over the algorithms that run
   * it here (by default all of them). Measuring auto measures the heuristic's plain all-reduce
   * choice with the pattern: the pattern does not change the choice.
   */
  private SweepPlan fusedPlan(BenchmarkSpec benchmark, AllReducePattern pattern, long seed) {
    String at = "spec.workload.benchmark";
    NormEpilogue epilogue =
        epilogue(
            at,
            pattern,
            benchmark.getHiddenSize(),
            benchmark.getFp8Scale(),
            benchmark.getFp32Accumulate());
    List<Algorithm> listed = benchmark.getAlgorithms();
    return new SweepPlan(
        Collective.ALLREDUCE,
        benchmark.getDtype(),
        benchmark.getHiddenSize(),
        points(
            at,
            benchmark.getTokens(),
            benchmark.getSizes(),
            benchmark.getHiddenSize(),
            benchmark.getDtype()),
        fusedAlgorithms(at, pattern, listed),
        listed == null || listed.contains(Algorithm.AUTO),
        benchmark.getWarmupIterations(),
        benchmark.getIterations(),
        benchmark.getCudaGraph(),
        false,
        seed,
        at + ".algorithms",
        epilogue);
  }

  /** The pattern's epilogue, or a job error when this communicator cannot fuse it at all. */
  NormEpilogue epilogue(
      String at,
      AllReducePattern pattern,
      int hiddenSize,
      Double fp8Scale,
      Boolean fp32Accumulate) {
    if (!(communicator instanceof FusedAllReduce fused)
        || fused.fusedAllReduceAlgorithms().isEmpty()) {
      throw new InvalidJobException(
          source,
          at + ".pattern",
          pattern.wireName() + " is not available on the " + device + " device; use allreduce");
    }
    return new NormEpilogue(
        pattern,
        hiddenSize,
        NormEpilogue.DEFAULT_EPSILON,
        fp8Scale == null ? 1f : fp8Scale.floatValue(),
        fp32Accumulate == null || fp32Accumulate);
  }

  /** The listed algorithms (all that run the pattern when none are listed), checked. */
  List<Algorithm> fusedAlgorithms(String at, AllReducePattern pattern, List<Algorithm> listed) {
    Set<Algorithm> fusing = ((FusedAllReduce) communicator).fusedAllReduceAlgorithms();
    if (listed == null) {
      return CollectiveAlgorithms.inReportOrder(
          CollectiveAlgorithms.fusedAvailable(communicator, (FusedAllReduce) communicator));
    }
    List<Algorithm> algorithms = new ArrayList<>();
    for (int i = 0; i < listed.size(); i++) {
      Algorithm algorithm = listed.get(i);
      if (algorithm == Algorithm.AUTO) {
        continue;
      }
      if (!fusing.contains(algorithm)) {
        throw new InvalidJobException(
            source,
            at + ".algorithms[" + i + "]",
            algorithm
                + " does not run "
                + pattern.wireName()
                + " on the "
                + device
                + " device (available: "
                + CollectiveAlgorithms.inReportOrder(fusing).stream()
                    .map(Algorithm::wireName)
                    .collect(Collectors.joining(", "))
                + ")");
      }
      algorithms.add(algorithm);
    }
    return algorithms;
  }

  /**
   * A tune sweep measures the candidates for its collective (all-reduce by default) eagerly and,
   * where the device can capture them, from CUDA graphs; the table ranks by graph time where there
   * is one (it times the kernels themselves, without the host's launch cost, which eager medians of
   * close candidates mix in).
   */
  public SweepPlan plan(TuneSpec tune, long seed) {
    String at = "spec.workload.tune";
    List<SweepPoint> points =
        points(at, tune.getTokens(), tune.getSizes(), tune.getHiddenSize(), tune.getDtype());
    Collective collective = Objects.requireNonNullElse(tune.getCollective(), Collective.ALLREDUCE);
    AllReducePattern pattern = tune.getPattern();
    if (pattern != null && pattern.normalizes()) {
      // The same candidates and points as the plain tune, so that the two tables' crossovers
      // compare: whether the pattern moves the one-/two-shot choice.
      return new SweepPlan(
          Collective.ALLREDUCE,
          tune.getDtype(),
          tune.getHiddenSize(),
          points,
          fusedAlgorithms(at, pattern, tune.getAlgorithms()),
          false,
          tune.getWarmupIterations(),
          tune.getIterations(),
          true,
          false,
          seed,
          at + ".algorithms",
          epilogue(
              at, pattern, tune.getHiddenSize(), tune.getFp8Scale(), tune.getFp32Accumulate()));
    }
    List<Algorithm> algorithms =
        tune.getAlgorithms() == null
            ? CollectiveAlgorithms.inReportOrder(
                CollectiveAlgorithms.available(communicator, collective))
            : checked(at + ".algorithms", tune.getAlgorithms(), collective, false);
    return new SweepPlan(
        collective,
        tune.getDtype(),
        tune.getHiddenSize(),
        points,
        algorithms,
        false,
        tune.getWarmupIterations(),
        tune.getIterations(),
        true,
        false,
        seed,
        at + ".algorithms");
  }

  private List<SweepPoint> points(
      String at, List<Integer> tokens, List<Long> sizes, int hiddenSize, DType dtype) {
    List<SweepPoint> points = new ArrayList<>();
    if (tokens != null) {
      for (int i = 0; i < tokens.size(); i++) {
        points.add(
            new SweepPoint(
                (long) tokens.get(i) * hiddenSize * dtype.bytes(),
                tokens.get(i),
                at + ".tokens[" + i + "]"));
      }
    } else {
      for (int i = 0; i < sizes.size(); i++) {
        points.add(new SweepPoint(sizes.get(i), null, at + ".sizes[" + i + "]"));
      }
    }
    return points;
  }

  private List<Algorithm> checked(
      String field, List<Algorithm> listed, Collective collective, boolean inPlace) {
    Set<Algorithm> accepted = CollectiveAlgorithms.accepted(communicator, collective, inPlace);
    List<Algorithm> algorithms = new ArrayList<>();
    for (int i = 0; i < listed.size(); i++) {
      Algorithm algorithm = listed.get(i);
      if (algorithm == Algorithm.AUTO) {
        continue;
      }
      if (!accepted.contains(algorithm)) {
        throw new InvalidJobException(
            source, field + "[" + i + "]", unavailable(algorithm, accepted, collective));
      }
      algorithms.add(algorithm);
    }
    return algorithms;
  }

  private String unavailable(Algorithm algorithm, Set<Algorithm> available, Collective collective) {
    String offered =
        available.isEmpty()
            ? "none"
            : CollectiveAlgorithms.inReportOrder(available).stream()
                .map(Algorithm::wireName)
                .collect(Collectors.joining(", "));
    String hint = "";
    if (algorithm == Algorithm.RING) {
      hint = "; ring is the CPU backend's stand-in for nccl";
    } else if (collective != Collective.ALLREDUCE && algorithm == Algorithm.TWOSHOT) {
      hint = "; twoshot is an all-reduce kernel";
    } else if (algorithm == Algorithm.ONESHOT || algorithm == Algorithm.COPYENGINE) {
      hint =
          "; oneshot runs all-reduce, all-gather and reduce-scatter, copyengine all-gather and"
              + " reduce-scatter, over the peer memory of one node";
    } else if (algorithm == Algorithm.HIERARCHICAL) {
      hint =
          collective != Collective.ALLREDUCE
              ? "; hierarchical is an all-reduce"
              : "; on the cuda backend hierarchical needs ranks on several pods, NCCL and peer"
                  + " memory";
    }
    return algorithm
        + " is not available for "
        + collective
        + " on the "
        + device
        + " device (available: "
        + offered
        + hint
        + ")";
  }
}
