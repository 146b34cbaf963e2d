package dev.gpucomm.runtime.heuristic;

import static dev.gpucomm.runtime.report.HumanUnits.binaryBytes;
import static dev.gpucomm.runtime.report.HumanUnits.micros;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Picks the algorithm a {@link TuningTable} measured fastest for the query's world size, layout
 * (ranks per pod), dtype and size, from the curves of the job's device model where it is built for
 * one (curves of older tables, which recorded no model, speak for any); outside the measured sizes,
 * the nearest measured range (the smallest size's winner below, the largest's above). Where the
 * table has no curve of the query's layout, a curve of the same world size without a recorded
 * layout (older tables) stands in; else a query spanning pods gets the across-pods rule (nccl or
 * hierarchical) and a single-node one trtllm's rule, and the reason says which and why.
 *
 * <p>Built for one job's collective, world size and dtype, a table of another collective or without
 * that curve is an error at construction; built for the whole table, a missing curve is one at the
 * first query that needs it, and a query for another collective than the table's gets nccl, with
 * the reason saying so.
 */
public final class MeasuredHeuristic implements AlgorithmHeuristic {
  /** What a single-node query gets where the table has no curve of its layout. */
  private static final AlgorithmHeuristic FALLBACK = new TrtllmHeuristic();

  private final TuningTable table;

  /** Answers for every world size and dtype the table holds. */
  public MeasuredHeuristic(TuningTable table) {
    this.table = Objects.requireNonNull(table, "table");
  }

  /**
   * Answers for one job of {@code collective}, checking now that the table measured that collective
   * and holds the job's curve (as the whole-table heuristic would only say per size).
   *
   * @throws IllegalArgumentException naming the table and what it lacks
   */
  public MeasuredHeuristic(TuningTable table, Collective collective, int worldSize, DType dtype) {
    this(table);
    requireCollective(table, collective);
    table.require(worldSize, dtype);
  }

  /**
   * Answers for one job of {@code collective} on devices named {@code deviceName} ("NVIDIA H200"),
   * from the curves measured on that device model (and those of older tables, which recorded no
   * device): another model's crossovers are not this one's.
   *
   * @throws IllegalArgumentException naming the table and what it lacks on that device
   */
  public MeasuredHeuristic(
      TuningTable table, Collective collective, int worldSize, DType dtype, String deviceName) {
    this(ownCurves(table, collective, worldSize, dtype, deviceName));
  }

  private static TuningTable ownCurves(
      TuningTable table, Collective collective, int worldSize, DType dtype, String deviceName) {
    requireCollective(table, collective);
    return table.requireOn(worldSize, dtype, deviceName);
  }

  private static void requireCollective(TuningTable table, Collective collective) {
    if (table.collective() != collective) {
      throw new IllegalArgumentException(
          "tuning table "
              + table.name()
              + " measured "
              + table.collective()
              + ", not "
              + collective
              + ": tune "
              + collective
              + " for this job, or name another heuristic");
    }
  }

  public TuningTable table() {
    return table;
  }

  @Override
  public String name() {
    return "measured";
  }

  @Override
  public Decision choose(SizeQuery query) {
    if (query.collective() != table.collective()) {
      return Decisions.settle(
          name(),
          query,
          Algorithm.NCCL,
          "tuning table "
              + table.name()
              + " measured "
              + table.collective()
              + ", not "
              + query.collective()
              + " → nccl");
    }
    int world = query.worldSize();
    table.require(world, query.dtype());
    String layout = TuningCurve.layout(world, query.ranksPerNode());
    Optional<TuningCurve> ofLayout = table.curve(world, query.ranksPerNode(), query.dtype());
    if (ofLayout.isPresent()) {
      return choose(query, ofLayout.get(), "");
    }
    String missing =
        "tuning table "
            + table.name()
            + " has no curve for "
            + layout
            + " "
            + query.dtype()
            + " (it has "
            + table.layoutsOf(world, query.dtype())
            + ")";
    Optional<TuningCurve> unrecorded = table.withoutLayout(world, query.dtype());
    if (unrecorded.isPresent()) {
      // Tables from before layouts were recorded were measured on one node: for such a query
      // their curve is the one it always was; for one spanning pods, say what stands in.
      return choose(
          query,
          unrecorded.get(),
          AcrossPods.applies(query)
              ? missing + "; using its curve of world " + world + " without a layout: "
              : "");
    }
    if (AcrossPods.applies(query)) {
      return AcrossPods.fallback(name(), missing, query);
    }
    Decision rule = FALLBACK.choose(query);
    return new Decision(
        rule.algorithm(), missing + "; falling back to " + FALLBACK.name() + ": " + rule.reason());
  }

  private Decision choose(SizeQuery query, TuningCurve curve, String fallback) {
    long bytes = query.bytes();
    SizeRange range = curve.rangeFor(bytes);
    String where;
    if (bytes < curve.smallestBytes()) {
      where =
          binaryBytes(bytes)
              + " is below the smallest measured size "
              + binaryBytes(curve.smallestBytes())
              + ": nearest measured range ";
    } else if (bytes > curve.largestBytes()) {
      where =
          binaryBytes(bytes)
              + " is above the largest measured size "
              + binaryBytes(curve.largestBytes())
              + ": nearest measured range ";
    } else {
      where = binaryBytes(bytes) + " in ";
    }
    boolean last = range == curve.ranges().getLast();
    String reason =
        fallback
            + "tuning table "
            + table.name()
            + " (world "
            + curve.worldSize()
            + (curve.layoutRecorded() ? ", " + curve.layout() : "")
            + ", "
            + curve.dtype()
            + (curve.deviceRecorded() ? ", " + curve.device() : "")
            + "): "
            + where
            + "["
            + binaryBytes(range.fromBytes())
            + ", "
            + binaryBytes(range.toBytes())
            + (last ? "]" : ")")
            + " → "
            + range.algorithm()
            + medians(curve.supportingMeasured(range, bytes));
    return Decisions.settle(name(), query, range.algorithm(), reason);
  }

  /**
   * The medians behind the choice; none rather than a point where the chosen algorithm lost, which
   * would contradict the choice it is meant to explain.
   */
  private static String medians(List<MeasuredPoint> points) {
    if (points.isEmpty()) {
      return "";
    }
    return " (medians at "
        + binaryBytes(points.getFirst().bytes())
        + ": "
        + points.stream()
            .map(point -> point.algorithm() + " " + micros(point.medianMicros()))
            .collect(Collectors.joining(", "))
        + ")";
  }
}
