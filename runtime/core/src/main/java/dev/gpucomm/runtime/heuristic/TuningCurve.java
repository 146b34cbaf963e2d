package dev.gpucomm.runtime.heuristic;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The fastest algorithm by message size for one world size, layout and dtype, on one device model:
 * contiguous, ordered {@link SizeRange}s spanning the measured sizes, and the medians they were
 * derived from.
 *
 * @param ranksPerNode ranks per node (pod) of the job that measured it, so that pods = worldSize /
 *     ranksPerNode; {@link #LAYOUT_NOT_RECORDED} in tables written before layouts were recorded
 * @param device the device it was measured on, as the device names itself ("NVIDIA H200"); null in
 *     tables written before devices were recorded
 */
public record TuningCurve(
    int worldSize,
    DType dtype,
    List<SizeRange> ranges,
    List<MeasuredPoint> measurements,
    int ranksPerNode,
    String device) {
  /** The layout of a curve from a table written before layouts were recorded. */
  public static final int LAYOUT_NOT_RECORDED = 0;

  /** The longest device name a curve keeps: the driver's names are under a hundred characters. */
  public static final int MAX_DEVICE_CHARS = 256;

  public TuningCurve {
    Objects.requireNonNull(dtype, "dtype");
    device = checkedDevice(device);
    if (worldSize < 1) {
      throw new IllegalArgumentException("worldSize: must be at least 1, got " + worldSize);
    }
    if (ranksPerNode != LAYOUT_NOT_RECORDED
        && (ranksPerNode < 1 || worldSize % ranksPerNode != 0)) {
      throw new IllegalArgumentException(
          "ranksPerNode: must divide worldSize " + worldSize + ", got " + ranksPerNode);
    }
    ranges = List.copyOf(ranges);
    measurements =
        measurements.stream()
            .sorted(
                Comparator.comparingLong(MeasuredPoint::bytes)
                    .thenComparing(MeasuredPoint::algorithm))
            .toList();
    if (ranges.isEmpty()) {
      throw new IllegalArgumentException("ranges: at least one range is needed");
    }
    for (int i = 0; i + 1 < ranges.size(); i++) {
      SizeRange range = ranges.get(i);
      SizeRange next = ranges.get(i + 1);
      if (range.toBytes() <= range.fromBytes()) {
        throw new IllegalArgumentException(
            "ranges["
                + i
                + "]: only the last range may be a single size, but it spans ["
                + range.fromBytes()
                + ", "
                + range.toBytes()
                + ")");
      }
      if (next.fromBytes() != range.toBytes()) {
        throw new IllegalArgumentException(
            "ranges["
                + (i + 1)
                + "].fromBytes: "
                + next.fromBytes()
                + " must equal ranges["
                + i
                + "].toBytes "
                + range.toBytes()
                + " (ranges are ordered and contiguous)");
      }
    }
  }

  /** A curve without a recorded device. */
  public TuningCurve(
      int worldSize,
      DType dtype,
      List<SizeRange> ranges,
      List<MeasuredPoint> measurements,
      int ranksPerNode) {
    this(worldSize, dtype, ranges, measurements, ranksPerNode, null);
  }

  /** A curve without a recorded layout or device. */
  public TuningCurve(
      int worldSize, DType dtype, List<SizeRange> ranges, List<MeasuredPoint> measurements) {
    this(worldSize, dtype, ranges, measurements, LAYOUT_NOT_RECORDED);
  }

  /**
   * The device model a curve is stamped with, and read for: the device's own name ("NVIDIA H200");
   * for the CPU backend just {@code cpu}, since its name carries the core count, which a pod's CPU
   * limit changes from host to host. Null where the name is not known.
   */
  public static String modelOf(String deviceKind, String deviceName) {
    return "cpu".equals(deviceKind) ? "cpu" : deviceName;
  }

  /**
   * A device name as a curve keeps it: null stays null (not recorded); otherwise one line of text,
   * as it appears in messages.
   *
   * @throws IllegalArgumentException for an empty, overlong or multi-line name
   */
  static String checkedDevice(String device) {
    if (device == null) {
      return null;
    }
    String name = device.strip();
    if (name.isEmpty()) {
      throw new IllegalArgumentException("device: must not be empty (leave it out if unknown)");
    }
    if (name.length() > MAX_DEVICE_CHARS) {
      throw new IllegalArgumentException(
          "device: at most " + MAX_DEVICE_CHARS + " characters, got " + name.length());
    }
    if (name.codePoints().anyMatch(TuningCurve::breaksTheLine)) {
      throw new IllegalArgumentException("device: must be one line of text");
    }
    return name;
  }

  /**
   * Control characters, line and paragraph separators, invisible formatting (bidi marks, tags) and
   * lone surrogates.
   */
  private static boolean breaksTheLine(int codePoint) {
    int type = Character.getType(codePoint);
    return Character.isISOControl(codePoint)
        || type == Character.LINE_SEPARATOR
        || type == Character.PARAGRAPH_SEPARATOR
        || type == Character.FORMAT
        || type == Character.SURROGATE;
  }

  public boolean layoutRecorded() {
    return ranksPerNode != LAYOUT_NOT_RECORDED;
  }

  public boolean deviceRecorded() {
    return device != null;
  }

  /** "NVIDIA H200", or "a device not recorded" for a curve from an older table. */
  public String measuredOn() {
    return deviceRecorded() ? device : "a device not recorded";
  }

  /** "2 pods × 4 ranks", "1 pod × 8 ranks", or "layout not recorded". */
  public String layout() {
    return layoutRecorded() ? layout(worldSize, ranksPerNode) : "layout not recorded";
  }

  /** "2 pods × 4 ranks" for a world of 8 with 4 ranks per node. */
  public static String layout(int worldSize, int ranksPerNode) {
    int pods = worldSize / ranksPerNode;
    return pods
        + (pods == 1 ? " pod" : " pods")
        + " × "
        + ranksPerNode
        + (ranksPerNode == 1 ? " rank" : " ranks");
  }

  /** The smallest measured size, where the first range starts. */
  public long smallestBytes() {
    return ranges.getFirst().fromBytes();
  }

  /** The largest measured size, where the last range ends. */
  public long largestBytes() {
    return ranges.getLast().toBytes();
  }

  /**
   * The range holding {@code bytes}; below the smallest measured size the first range, above the
   * largest the last (the nearest measured point).
   */
  public SizeRange rangeFor(long bytes) {
    SizeRange found = ranges.getFirst();
    for (SizeRange range : ranges) {
      if (range.fromBytes() <= bytes) {
        found = range;
      }
    }
    return found;
  }

  /**
   * The medians that support {@code range}: those at the measured size nearest to {@code bytes} on
   * a log scale among the sizes inside the range where the range's algorithm was the fastest; empty
   * if the range holds no such size (a table whose ranges were written by hand, or coarsened).
   */
  public List<MeasuredPoint> supportingMeasured(SizeRange range, long bytes) {
    boolean last = range.equals(ranges.getLast());
    double target = Math.log(Math.max(bytes, 1));
    return measurements.stream()
        .map(MeasuredPoint::bytes)
        .distinct()
        .filter(size -> size >= range.fromBytes())
        .filter(size -> last ? size <= range.toBytes() : size < range.toBytes())
        .filter(size -> fastestAt(size) == range.algorithm())
        .min(Comparator.comparingDouble(size -> Math.abs(Math.log(size) - target)))
        .map(this::measuredAt)
        .orElse(List.of());
  }

  private Algorithm fastestAt(long bytes) {
    return measuredAt(bytes).getFirst().algorithm();
  }

  /** The medians measured at {@code bytes}, fastest first. */
  private List<MeasuredPoint> measuredAt(long bytes) {
    return measurements.stream()
        .filter(point -> point.bytes() == bytes)
        .sorted(Comparator.comparingDouble(MeasuredPoint::medianMicros))
        .toList();
  }

  /** The medians at the measured size nearest to {@code bytes} on a log scale; empty if none. */
  public List<MeasuredPoint> nearestMeasured(long bytes) {
    if (measurements.isEmpty()) {
      return List.of();
    }
    double target = Math.log(Math.max(bytes, 1));
    long nearest =
        measurements.stream()
            .mapToLong(MeasuredPoint::bytes)
            .boxed()
            .min(Comparator.comparingDouble(size -> Math.abs(Math.log(size) - target)))
            .orElseThrow();
    return measurements.stream()
        .filter(point -> point.bytes() == nearest)
        .sorted(Comparator.comparingDouble(MeasuredPoint::medianMicros))
        .toList();
  }
}
