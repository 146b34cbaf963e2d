package dev.gpucomm.runtime.hostir.ir;

import java.util.List;

/**
 * {@code out[m, n] = a[m, k] × b[k, n]} on the current stream, fp32 accumulation. Each operand is
 * read as a row-major matrix whose last allocated axis is the column axis and whose other allocated
 * axes are flattened into rows.
 */
public record Matmul(Tensor out, Tensor a, Tensor b) implements Statement {
  public Matmul {
    if (a.dtype() != b.dtype() || a.dtype() != out.dtype()) {
      throw new IllegalArgumentException(
          "matmul operands need one dtype: " + out.name() + ", " + a.name() + ", " + b.name());
    }
    long m = rows(a);
    long k = columns(a);
    long n = columns(b);
    if (rows(b) != k || rows(out) != m || columns(out) != n) {
      throw new IllegalArgumentException(
          "matmul shapes do not agree: "
              + out.name()
              + out.localShape()
              + " = "
              + a.name()
              + a.localShape()
              + " x "
              + b.name()
              + b.localShape());
    }
  }

  public long m() {
    return rows(a);
  }

  public long n() {
    return columns(b);
  }

  public long k() {
    return columns(a);
  }

  private static long rows(Tensor tensor) {
    List<Long> shape = tensor.localShape();
    long rows = 1;
    for (int index = 0; index < shape.size() - 1; index++) {
      rows *= shape.get(index);
    }
    return rows;
  }

  private static long columns(Tensor tensor) {
    List<Long> shape = tensor.localShape();
    return shape.isEmpty() ? 1 : shape.getLast();
  }
}
