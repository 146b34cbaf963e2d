package dev.gpucomm.runtime.heuristic;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.Measurement;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Where the fastest algorithm changes with message size, per world size, layout (ranks per pod) and
 * dtype, as measured on one cluster by {@code gpucomm tune}: what the {@code measured} heuristic
 * reads. Stored as JSON by {@link TuningTableJson} (schema {@value #SCHEMA_VERSION}).
 */
public record TuningTable(String name, Collective collective, List<TuningCurve> curves) {
  /** The newest layout: 2 records each curve's device; a table without devices is written as 1. */
  public static final int SCHEMA_VERSION = 2;

  private static final Comparator<TuningCurve> CURVE_ORDER =
      Comparator.comparingInt(TuningCurve::worldSize)
          .thenComparingInt(TuningCurve::ranksPerNode)
          .thenComparing(TuningCurve::dtype)
          .thenComparing(TuningCurve::device, Comparator.nullsFirst(Comparator.naturalOrder()));

  public TuningTable {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("name: must not be empty");
    }
    Objects.requireNonNull(collective, "collective");
    if (curves.isEmpty()) {
      throw new IllegalArgumentException("curves: at least one curve is needed");
    }
    curves = curves.stream().sorted(CURVE_ORDER).toList();
    for (int i = 0; i + 1 < curves.size(); i++) {
      if (CURVE_ORDER.compare(curves.get(i), curves.get(i + 1)) == 0) {
        throw new IllegalArgumentException(
            "curves: two curves for world size "
                + curves.get(i).worldSize()
                + " ("
                + curves.get(i).layout()
                + ") and dtype "
                + curves.get(i).dtype()
                + " measured on "
                + curves.get(i).measuredOn());
      }
    }
  }

  /**
   * The table as it speaks for {@code deviceName} (as the device names itself, "NVIDIA H200"): the
   * curves measured on it, and those whose device was not recorded (tables written before devices
   * were) where no curve of the same world size, layout and dtype was measured on it. Where one GPU
   * model's crossovers fall says nothing of another's, so a curve of another device never stands
   * in; a table tuned on several models (one per node pool) serves each its own.
   *
   * @throws IllegalArgumentException naming the table, the device and the devices it measured, when
   *     no curve speaks for it
   */
  public TuningTable measuredOn(String deviceName) {
    String model = TuningCurve.checkedDevice(Objects.requireNonNull(deviceName, "deviceName"));
    Map<String, TuningCurve> own = new LinkedHashMap<>();
    for (TuningCurve curve : curves) {
      if (!curve.deviceRecorded()) {
        own.putIfAbsent(curveKeyOnAnyDevice(curve), curve);
      }
    }
    for (TuningCurve curve : curves) {
      if (model.equals(curve.device())) {
        own.put(curveKeyOnAnyDevice(curve), curve);
      }
    }
    if (own.isEmpty()) {
      throw new IllegalArgumentException(
          "tuning table "
              + name
              + " has no curve measured on "
              + model
              + " (it measured "
              + devices()
              + "); run gpucomm tune on this hardware, or name another heuristic");
    }
    return new TuningTable(name, collective, List.copyOf(own.values()));
  }

  /**
   * As {@link #require}, of the curves that speak for {@code deviceName} (see {@link #measuredOn}),
   * which it returns.
   *
   * @throws IllegalArgumentException naming the table, what it lacks, and where it measured that
   */
  public TuningTable requireOn(int worldSize, DType dtype, String deviceName) {
    TuningTable own = measuredOn(deviceName);
    String model = TuningCurve.checkedDevice(deviceName);
    if (own.curve(worldSize, dtype).isEmpty() && curve(worldSize, dtype).isPresent()) {
      throw new IllegalArgumentException(
          "tuning table "
              + name
              + " has no curve for world size "
              + worldSize
              + " and dtype "
              + dtype
              + " measured on "
              + model
              + " (it measured them on "
              + curves.stream()
                  .filter(curve -> curve.worldSize() == worldSize && curve.dtype() == dtype)
                  .map(TuningCurve::measuredOn)
                  .distinct()
                  .collect(Collectors.joining(", "))
              + "); run gpucomm tune on this hardware, or name another heuristic");
    }
    own.require(worldSize, dtype);
    return own;
  }

  /** The devices the table's curves were measured on, for messages. */
  private String devices() {
    return curves.stream()
        .map(TuningCurve::measuredOn)
        .distinct()
        .collect(Collectors.joining(", "));
  }

  /**
   * A curve for {@code worldSize} and {@code dtype}, if measured: of one node where the table has
   * that layout, else one without a recorded layout, else the first other layout.
   */
  public Optional<TuningCurve> curve(int worldSize, DType dtype) {
    return curve(worldSize, worldSize, dtype)
        .or(() -> withoutLayout(worldSize, dtype))
        .or(
            () ->
                curves.stream()
                    .filter(curve -> curve.worldSize() == worldSize && curve.dtype() == dtype)
                    .findFirst());
  }

  /** The curve measured with exactly this layout ({@code ranksPerNode} ranks per node). */
  public Optional<TuningCurve> curve(int worldSize, int ranksPerNode, DType dtype) {
    return curves.stream()
        .filter(
            curve ->
                curve.worldSize() == worldSize
                    && curve.ranksPerNode() == ranksPerNode
                    && curve.dtype() == dtype)
        .findFirst();
  }

  /** The curve for {@code worldSize} and {@code dtype} from before layouts were recorded. */
  public Optional<TuningCurve> withoutLayout(int worldSize, DType dtype) {
    return curve(worldSize, TuningCurve.LAYOUT_NOT_RECORDED, dtype);
  }

  /** The layouts the table measured for {@code worldSize} and {@code dtype}, for messages. */
  public String layoutsOf(int worldSize, DType dtype) {
    List<String> layouts =
        curves.stream()
            .filter(curve -> curve.worldSize() == worldSize && curve.dtype() == dtype)
            .map(TuningCurve::layout)
            .toList();
    return layouts.isEmpty() ? "none" : String.join(", ", layouts);
  }

  /**
   * The curve for {@code worldSize} and {@code dtype}.
   *
   * @throws IllegalArgumentException naming the table and what it lacks
   */
  public TuningCurve require(int worldSize, DType dtype) {
    return curve(worldSize, dtype)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "tuning table "
                        + name
                        + " has no curve for world size "
                        + worldSize
                        + " and dtype "
                        + dtype
                        + " (it has "
                        + curves.stream()
                            .map(curve -> "world " + curve.worldSize() + " " + curve.dtype())
                            .collect(Collectors.joining(", "))
                        + "); run gpucomm tune for that world size and dtype"));
  }

  /**
   * This table with {@code other}'s curves added; where both have a curve for the same world size,
   * layout and dtype measured on the same device, {@code other}'s (the newer measurement) replaces
   * this one's. Curves of other devices stay beside it.
   *
   * @throws IllegalArgumentException when the tables measured different collectives
   */
  public TuningTable mergedWith(TuningTable other) {
    if (other.collective() != collective) {
      throw new IllegalArgumentException(
          "cannot merge tuning table "
              + other.name()
              + " ("
              + other.collective()
              + ") into "
              + name
              + " ("
              + collective
              + ")");
    }
    Map<String, TuningCurve> merged = new LinkedHashMap<>();
    for (TuningCurve curve : curves) {
      merged.put(curveKey(curve), curve);
    }
    for (TuningCurve curve : other.curves()) {
      merged.put(curveKey(curve), curve);
    }
    return new TuningTable(name, collective, List.copyOf(merged.values()));
  }

  private static String curveKey(TuningCurve curve) {
    return curveKeyOnAnyDevice(curve) + "/" + curve.device();
  }

  private static String curveKeyOnAnyDevice(TuningCurve curve) {
    return curve.worldSize() + "/" + curve.ranksPerNode() + "/" + curve.dtype();
  }

  /**
   * Derives a table from measured medians: per world size, layout and dtype, the fastest algorithm
   * at each measured size (ties go to the algorithm declared first in {@link Algorithm}: nccl,
   * oneshot, twoshot, ring), consecutive sizes with the same winner collapsed into one range, and
   * each crossover placed at the geometric midpoint {@code √(a·b)} (rounded) of the two adjacent
   * measured sizes {@code a < b} where the winner changes. Samples of {@code auto} are ignored: it
   * runs one of the others.
   *
   * @throws IllegalArgumentException when there are no samples, or two for the same point
   */
  public static TuningTable fromMeasurements(
      String name, Collective collective, List<TuningSample> samples) {
    Map<String, List<TuningSample>> byCurve = new TreeMap<>();
    for (TuningSample sample : samples) {
      if (sample.algorithm() != Algorithm.AUTO) {
        byCurve
            .computeIfAbsent(
                sample.worldSize()
                    + "/"
                    + sample.ranksPerNode()
                    + "/"
                    + sample.dtype()
                    + "/"
                    + sample.device(),
                key -> new ArrayList<>())
            .add(sample);
      }
    }
    if (byCurve.isEmpty()) {
      throw new IllegalArgumentException(
          "tuning table " + name + ": no measurements of nccl, oneshot, twoshot or ring");
    }
    List<TuningCurve> curves = new ArrayList<>();
    for (List<TuningSample> group : byCurve.values()) {
      curves.add(curveOf(group));
    }
    return new TuningTable(name, collective, curves);
  }

  /**
   * Derives a table from benchmark reports (one per world size, layout and dtype, say), using each
   * measurement's {@link Measurement#bestMicros()}; each curve records its report's layout (ranks
   * per pod) and device model ({@link TuningCurve#modelOf}).
   *
   * @throws IllegalArgumentException when the reports measured different collectives
   */
  public static TuningTable fromReports(String name, List<BenchmarkReport> reports) {
    if (reports.isEmpty()) {
      throw new IllegalArgumentException("tuning table " + name + ": no reports");
    }
    Collective collective = reports.getFirst().collective();
    List<TuningSample> samples = new ArrayList<>();
    for (BenchmarkReport report : reports) {
      if (report.collective() != collective) {
        throw new IllegalArgumentException(
            "tuning table "
                + name
                + ": reports measured both "
                + collective
                + " and "
                + report.collective());
      }
      for (SizeResult size : report.sizes()) {
        for (Measurement measurement : size.measurements()) {
          samples.add(
              new TuningSample(
                  report.worldSize(),
                  report.dtype(),
                  size.bytes(),
                  measurement.algorithm(),
                  measurement.bestMicros(),
                  report.ranksPerPod(),
                  TuningCurve.modelOf(report.device(), report.deviceName())));
        }
      }
    }
    return fromMeasurements(name, collective, samples);
  }

  private static TuningCurve curveOf(List<TuningSample> group) {
    TuningSample first = group.getFirst();
    TreeMap<Long, Map<Algorithm, Double>> bySize = new TreeMap<>();
    List<MeasuredPoint> points = new ArrayList<>();
    for (TuningSample sample : group) {
      Map<Algorithm, Double> atSize =
          bySize.computeIfAbsent(sample.bytes(), size -> new EnumMap<>(Algorithm.class));
      if (atSize.put(sample.algorithm(), sample.medianMicros()) != null) {
        throw new IllegalArgumentException(
            "two measurements of "
                + sample.algorithm()
                + " at "
                + sample.bytes()
                + " B for world size "
                + sample.worldSize()
                + " and dtype "
                + sample.dtype());
      }
      points.add(new MeasuredPoint(sample.bytes(), sample.algorithm(), sample.medianMicros()));
    }

    List<SizeRange> ranges = new ArrayList<>();
    long rangeStart = bySize.firstKey();
    long previousSize = rangeStart;
    Algorithm previousWinner = null;
    for (Map.Entry<Long, Map<Algorithm, Double>> entry : bySize.entrySet()) {
      Algorithm winner = fastest(entry.getValue());
      long size = entry.getKey();
      if (previousWinner != null && winner != previousWinner) {
        long crossover = geometricMidpoint(previousSize, size);
        ranges.add(new SizeRange(rangeStart, crossover, previousWinner));
        rangeStart = crossover;
      }
      previousWinner = winner;
      previousSize = size;
    }
    ranges.add(new SizeRange(rangeStart, bySize.lastKey(), previousWinner));
    return new TuningCurve(
        first.worldSize(), first.dtype(), ranges, points, first.ranksPerNode(), first.device());
  }

  private static Algorithm fastest(Map<Algorithm, Double> medians) {
    // EnumMap iterates in declaration order, so the first minimum wins ties.
    Algorithm best = null;
    double bestMicros = Double.POSITIVE_INFINITY;
    for (Map.Entry<Algorithm, Double> entry : medians.entrySet()) {
      if (entry.getValue() < bestMicros) {
        best = entry.getKey();
        bestMicros = entry.getValue();
      }
    }
    return best;
  }

  /** √(a·b) rounded, kept inside (a, b] so that both neighbours stay in their own range. */
  static long geometricMidpoint(long smaller, long larger) {
    long midpoint = Math.round(Math.sqrt((double) smaller) * Math.sqrt((double) larger));
    return Math.min(larger, Math.max(smaller + 1, midpoint));
  }
}
