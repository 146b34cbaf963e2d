package dev.gpucomm.runtime.hostir.ir;

import dev.gpucomm.api.v1alpha1.DType;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A symbolic tensor of a host program: a number that names it, its element type, its axes and its
 * memory type. Rank-local memory holds the {@link Axis#allocated() allocated} axes, row-major in
 * the order given.
 */
public record Tensor(int id, DType dtype, List<Axis> axes, MemoryType memoryType) {
  public Tensor {
    if (id < 0) {
      throw new IllegalArgumentException("tensor id must be >= 0, got " + id);
    }
    axes = List.copyOf(axes);
    if (axes.isEmpty()) {
      throw new IllegalArgumentException("tensor T" + id + " needs at least one axis");
    }
  }

  /** The short name used in messages and in references: {@code T3}. */
  public String name() {
    return "T" + id;
  }

  /** Elements this tensor occupies on one rank. */
  public long localElements() {
    long elements = 1;
    for (Axis axis : axes) {
      if (axis.allocated()) {
        elements = Math.multiplyExact(elements, axis.extent());
      }
    }
    return elements;
  }

  public long localBytes() {
    return Math.multiplyExact(localElements(), dtype.bytes());
  }

  /** Extents of the allocated axes, outermost first. */
  public List<Long> localShape() {
    return axes.stream().filter(Axis::allocated).map(Axis::extent).toList();
  }

  /** Index in {@link #axes()} of the stream axis, or -1 when the tensor has none. */
  public int streamAxis() {
    for (int index = 0; index < axes.size(); index++) {
      if (axes.get(index).parallelType() == ParallelType.STREAM && !axes.get(index).reduction()) {
        return index;
      }
    }
    return -1;
  }

  /** True when the tensor has a stream axis that is its outermost allocated axis. */
  public boolean streamParallelOutermost() {
    for (Axis axis : axes) {
      if (axis.allocated()) {
        return axis.parallelType() == ParallelType.STREAM;
      }
    }
    return false;
  }

  /** The nvFuser spelling: {@code T0_g___bfloat[istreamIdx{2}, iS{4}, iS{8}]}. */
  @Override
  public String toString() {
    return name()
        + "_"
        + memoryType.printed()
        + "_"
        + printedType(dtype)
        + axes.stream().map(Axis::toString).collect(Collectors.joining(", ", "[", "]"));
  }

  private static String printedType(DType dtype) {
    return switch (dtype) {
      case BF16 -> "__bfloat";
      case FP16 -> "__half";
      case FP32 -> "float";
    };
  }
}
