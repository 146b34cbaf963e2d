package dev.gpucomm.runtime.device.cpu;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.cpu.CpuBackend;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.numeric.ElementCodec;
import dev.gpucomm.runtime.numeric.ReductionTolerance;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class CpuMatmulTest {
  /** Shapes around the row (32), depth (64) and column (512) blocks, and degenerate ones. */
  private static final int[][] SHAPES = {{1, 1, 1}, {7, 13, 5}, {33, 515, 70}, {64, 3, 64}};

  private final CpuDevice device = new CpuBackend(CpuBackendConfig.defaults("matmul-test")).open(0);

  @AfterEach
  void closeDevice() {
    device.close();
  }

  @ParameterizedTest
  @EnumSource(DType.class)
  void productsMatchAFloat64ReferenceWithinTheFp32AccumulationBound(DType dtype) {
    long seed = 1;
    for (int[] shape : SHAPES) {
      for (boolean accumulate : new boolean[] {false, true}) {
        checkProduct(dtype, shape[0], shape[1], shape[2], accumulate, seed++);
      }
    }
  }

  @Test
  void operandsTooSmallForTheShapeAreRefused() {
    DeviceBuffer small = device.allocate(100);
    assertThatThrownBy(
            () ->
                device
                    .matmul()
                    .multiply(
                        small, small, small, 8, 8, 8, DType.BF16, false, device.defaultStream()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("matmul: A holds 100 bytes, 8 x 8 bf16 needs 128");
  }

  private void checkProduct(DType dtype, int m, int n, int k, boolean accumulate, long seed) {
    ElementCodec codec = ElementCodec.of(dtype);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment a = random(arena, codec, (long) m * k, seed);
      MemorySegment b = random(arena, codec, (long) k * n, seed + 100);
      MemorySegment c = random(arena, codec, (long) m * n, seed + 200);
      DeviceBuffer deviceA = device.allocate(a.byteSize());
      DeviceBuffer deviceB = device.allocate(b.byteSize());
      DeviceBuffer deviceC = device.allocate(c.byteSize());
      device.upload(a, deviceA, 0);
      device.upload(b, deviceB, 0);
      device.upload(c, deviceC, 0);

      device
          .matmul()
          .multiply(deviceA, deviceB, deviceC, m, n, k, dtype, accumulate, device.defaultStream());
      MemorySegment result = arena.allocate(c.byteSize());
      device.download(deviceC, 0, result, device.defaultStream());

      ReductionTolerance tolerance =
          ReductionTolerance.forDotProduct(dtype, accumulate ? k + 1 : k);
      float[] left = values(codec, a);
      float[] right = values(codec, b);
      float[] initial = values(codec, c);
      float[] actual = values(codec, result);
      for (int row = 0; row < m; row++) {
        for (int column = 0; column < n; column++) {
          double exact = accumulate ? initial[row * n + column] : 0;
          double magnitudes = Math.abs(exact);
          for (int d = 0; d < k; d++) {
            double product = (double) left[row * k + d] * right[d * n + column];
            exact += product;
            magnitudes += Math.abs(product);
          }
          if (!tolerance.accepts(exact, magnitudes, actual[row * n + column])) {
            fail(
                "%s %dx%dx%d%s: C[%d][%d] is %s, the float64 reference %s",
                dtype,
                m,
                n,
                k,
                accumulate ? " accumulating" : "",
                row,
                column,
                actual[row * n + column],
                exact);
          }
        }
      }
      deviceA.close();
      deviceB.close();
      deviceC.close();
    }
  }

  private static float[] values(ElementCodec codec, MemorySegment segment) {
    float[] values = new float[(int) (segment.byteSize() / codec.bytes())];
    codec.load(segment, 0, values, 0, values.length);
    return values;
  }

  private static MemorySegment random(Arena arena, ElementCodec codec, long count, long seed) {
    MemorySegment segment = arena.allocate(count * codec.bytes());
    codec.fillRandom(segment, count, seed);
    return segment;
  }
}
