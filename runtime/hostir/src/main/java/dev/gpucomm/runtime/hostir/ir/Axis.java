package dev.gpucomm.runtime.hostir.ir;

/**
 * One axis of a symbolic tensor: its extent, how it is parallelized, and whether it is a reduction
 * axis (summed away, as the K axis of a matmul output or the device axis of an all-reduce output).
 */
public record Axis(long extent, ParallelType parallelType, boolean reduction) {
  public Axis {
    if (extent < 1) {
      throw new IllegalArgumentException("axis extent must be positive, got " + extent);
    }
    if (parallelType == null) {
      throw new IllegalArgumentException("axis needs a parallel type");
    }
  }

  public static Axis serial(long extent) {
    return new Axis(extent, ParallelType.SERIAL, false);
  }

  public static Axis stream(long extent) {
    return new Axis(extent, ParallelType.STREAM, false);
  }

  public static Axis device(long extent) {
    return new Axis(extent, ParallelType.DEVICE, false);
  }

  public static Axis reducedSerial(long extent) {
    return new Axis(extent, ParallelType.SERIAL, true);
  }

  public static Axis reducedDevice(long extent) {
    return new Axis(extent, ParallelType.DEVICE, true);
  }

  /** True when the axis occupies memory on each rank: not spread over ranks, not reduced. */
  public boolean allocated() {
    return !reduction && parallelType != ParallelType.DEVICE;
  }

  /** The nvFuser spelling: {@code iS{4}}, {@code istreamIdx{2}}, {@code rdeviceIdx.x{8}}. */
  @Override
  public String toString() {
    return (reduction ? "r" : "i") + parallelType.printed() + "{" + extent + "}";
  }
}
