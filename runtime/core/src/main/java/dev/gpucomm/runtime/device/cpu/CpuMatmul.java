package dev.gpucomm.runtime.device.cpu;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Matmul;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.numeric.ElementCodec;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * Row-major matrix products on the CPU with fp32 accumulation: blocks of rows run in parallel, and
 * each block walks B in panels converted to fp32 once per block, so that the inner loop is a plain
 * fp32 multiply-add over contiguous arrays.
 */
final class CpuMatmul implements Matmul {
  private static final int ROW_BLOCK = 32;
  private static final int DEPTH_BLOCK = 64;
  private static final int COLUMN_BLOCK = 512;

  private final CpuDevice device;

  CpuMatmul(CpuDevice device) {
    this.device = device;
  }

  @Override
  public void multiply(
      DeviceBuffer a,
      DeviceBuffer b,
      DeviceBuffer c,
      long m,
      long n,
      long k,
      DType dtype,
      boolean accumulate,
      Stream stream) {
    Matmul.requireDimensions(m, n, k, 0);
    ElementCodec codec = ElementCodec.of(dtype);
    MemorySegment left = operand("A", a, m, k, dtype);
    MemorySegment right = operand("B", b, k, n, dtype);
    MemorySegment result = operand("C", c, m, n, dtype);
    Product product = new Product(left, right, result, (int) m, (int) n, k, codec, accumulate);
    device.streamOf(stream).launch("matmul", product::compute);
  }

  /** The CPU has no multiprocessors to leave free: limited products still use every core. */
  @Override
  public Matmul limitedTo(int multiprocessors) {
    if (multiprocessors < 1) {
      throw new IllegalArgumentException(
          "a matmul needs at least 1 multiprocessor, got " + multiprocessors);
    }
    return this;
  }

  private static MemorySegment operand(
      String role, DeviceBuffer buffer, long rows, long columns, DType dtype) {
    MemorySegment segment = CpuMemory.segmentOf(buffer);
    Matmul.requireOperand(role, segment.byteSize(), rows, columns, dtype);
    return segment;
  }

  /** One product, computed on the stream's worker with help from the common fork-join pool. */
  private record Product(
      MemorySegment a,
      MemorySegment b,
      MemorySegment c,
      int m,
      int n,
      long k,
      ElementCodec codec,
      boolean accumulate) {

    void compute() {
      int rowBlocks = (m + ROW_BLOCK - 1) / ROW_BLOCK;
      IntStream.range(0, rowBlocks).parallel().forEach(this::computeRowBlock);
    }

    private void computeRowBlock(int block) {
      int firstRow = block * ROW_BLOCK;
      int rows = Math.min(ROW_BLOCK, m - firstRow);
      float[] sums = new float[rows * COLUMN_BLOCK];
      float[] panel = new float[DEPTH_BLOCK * COLUMN_BLOCK];
      float[] aValues = new float[DEPTH_BLOCK];
      for (int firstColumn = 0; firstColumn < n; firstColumn += COLUMN_BLOCK) {
        int columns = Math.min(COLUMN_BLOCK, n - firstColumn);
        for (int row = 0; row < rows; row++) {
          if (accumulate) {
            codec.load(c, rowStart(firstRow + row, n) + firstColumn, sums, row * columns, columns);
          } else {
            Arrays.fill(sums, row * columns, (row + 1) * columns, 0f);
          }
        }
        for (long firstDepth = 0; firstDepth < k; firstDepth += DEPTH_BLOCK) {
          int depth = (int) Math.min(DEPTH_BLOCK, k - firstDepth);
          for (int d = 0; d < depth; d++) {
            codec.load(b, (firstDepth + d) * n + firstColumn, panel, d * columns, columns);
          }
          for (int row = 0; row < rows; row++) {
            codec.load(a, (firstRow + row) * k + firstDepth, aValues, 0, depth);
            multiplyAdd(aValues, depth, panel, columns, sums, row * columns);
          }
        }
        for (int row = 0; row < rows; row++) {
          codec.store(sums, row * columns, c, rowStart(firstRow + row, n) + firstColumn, columns);
        }
      }
    }

    private static long rowStart(int row, int n) {
      return (long) row * n;
    }

    /** sums[j] += Σ_d aValues[d] · panel[d][j]: fp32 products and sums, in order of d. */
    private static void multiplyAdd(
        float[] aValues, int depth, float[] panel, int columns, float[] sums, int offset) {
      for (int d = 0; d < depth; d++) {
        float aValue = aValues[d];
        int panelRow = d * columns;
        for (int j = 0; j < columns; j++) {
          sums[offset + j] += aValue * panel[panelRow + j];
        }
      }
    }
  }
}
