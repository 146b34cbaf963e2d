package dev.gpucomm.runtime.device.cuda;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.cuda.CudaBackend;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Graph;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.numeric.ElementCodec;
import dev.gpucomm.runtime.numeric.ReductionTolerance;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The CUDA device on a real GPU: memory, copies, events, graphs, matmul, ownership. */
@Tag("gpu")
class CudaDeviceGpuTest {
  private CudaDevice device;

  @BeforeEach
  void openFirstGpu() {
    CudaBackend backend = new CudaBackend();
    assumeTrue(backend.deviceCount() > 0, "no GPU: " + backend.unavailableReason());
    device = (CudaDevice) backend.open(0);
  }

  @AfterEach
  void close() {
    if (device != null) {
      device.close();
    }
  }

  @Test
  void freeMemoryShrinksByWhatIsAllocated() {
    long before = device.freeMemoryBytes().orElseThrow();
    try (DeviceBuffer buffer = device.allocate(1L << 30)) {
      long during = device.freeMemoryBytes().orElseThrow();

      assertThat(before).isPositive();
      assertThat(before - during).isGreaterThanOrEqualTo(1L << 30);
    }
  }

  @Test
  void reportsAModelAndComputeCapability() {
    assertThat(device.name()).isNotBlank();
    assertThat(device.computeCapability())
        .hasValueSatisfying(cc -> assertThat(cc.major()).isGreaterThanOrEqualTo(7));
    assertThat(device.multiprocessors()).isPositive();
    assertThat(device.greatestPriority()).as("CUDA priorities count down from 0").isNotPositive();
  }

  @Test
  void namesItsGpuByUuidAndPciBusIdAsNvidiaSmiDoes() {
    assertThat(device.uuid())
        .hasValueSatisfying(uuid -> assertThat(uuid).matches("GPU-[0-9a-f-]{36}"));
    assertThat(device.pciBusId())
        .hasValueSatisfying(
            busId ->
                assertThat(busId)
                    .matches("[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-7]"));
  }

  @Test
  void bytesSurviveUploadCopyFillAndDownload() {
    try (Arena arena = Arena.ofConfined();
        DeviceBuffer a = device.allocate(1 << 20);
        DeviceBuffer b = device.allocate(1 << 20)) {
      Stream stream = device.defaultStream();
      MemorySegment host = arena.allocate(1 << 20);
      for (int i = 0; i < host.byteSize(); i++) {
        host.set(JAVA_BYTE, i, (byte) (i * 7));
      }
      device.upload(host, a, 0);
      device.copy(b, 0, a, 0, 1 << 20, stream);
      device.fill(b, 4096, 100, (byte) 0x5a, stream);
      MemorySegment back = arena.allocate(1 << 20);
      device.download(b, 0, back, stream);

      assertThat(back.get(JAVA_BYTE, 4095)).isEqualTo((byte) (4095 * 7));
      assertThat(back.get(JAVA_BYTE, 4096)).isEqualTo((byte) 0x5a);
      assertThat(back.get(JAVA_BYTE, 4196)).isEqualTo((byte) (4196 * 7));
      assertThat(back.asSlice(8192).mismatch(host.asSlice(8192))).isEqualTo(-1);
    }
  }

  @Test
  void aCapturedGraphReplaysItsCopiesAndEventsTimeThem() {
    try (Arena arena = Arena.ofConfined();
        DeviceBuffer source = device.allocate(64 << 20);
        DeviceBuffer target = device.allocate(64 << 20)) {
      Stream stream = device.createStream();
      device.fill(source, 0, source.byteSize(), (byte) 3, stream);
      Graph graph =
          device.capture(stream, () -> device.copy(target, 0, source, 0, 64 << 20, stream));
      Event start = device.createEvent();
      Event end = device.createEvent();
      start.record(stream);
      graph.replay(stream);
      end.record(stream);
      end.synchronize();
      MemorySegment back = arena.allocate(16);
      device.download(target, (64 << 20) - 16, back, stream);

      assertThat(end.elapsedMillisSince(start)).isPositive();
      assertThat(back.get(JAVA_BYTE, 15)).isEqualTo((byte) 3);
    }
  }

  @Test
  void matmulOfRowMajorMatricesMatchesAFloat64Reference() {
    int m = 96;
    int n = 80;
    int k = 64;
    ElementCodec codec = ElementCodec.of(DType.BF16);
    try (Arena arena = Arena.ofConfined();
        DeviceBuffer a = device.allocate(2L * m * k);
        DeviceBuffer b = device.allocate(2L * k * n);
        DeviceBuffer c = device.allocate(2L * m * n)) {
      MemorySegment hostA = arena.allocate(a.byteSize());
      MemorySegment hostB = arena.allocate(b.byteSize());
      codec.fillRandom(hostA, (long) m * k, 1);
      codec.fillRandom(hostB, (long) k * n, 2);
      device.upload(hostA, a, 0);
      device.upload(hostB, b, 0);
      device.matmul().multiply(a, b, c, m, n, k, DType.BF16, false, device.defaultStream());
      MemorySegment hostC = arena.allocate(c.byteSize());
      device.download(c, 0, hostC, device.defaultStream());

      ReductionTolerance tolerance = ReductionTolerance.forDotProduct(DType.BF16, k);
      for (int row = 0; row < m; row++) {
        for (int column = 0; column < n; column++) {
          double exact = 0;
          double magnitude = 0;
          for (int i = 0; i < k; i++) {
            double product =
                (double) codec.read(hostA, (long) row * k + i)
                    * codec.read(hostB, (long) i * n + column);
            exact += product;
            magnitude += Math.abs(product);
          }
          assertThat(
                  tolerance.accepts(exact, magnitude, codec.read(hostC, (long) row * n + column)))
              .as("C[%d,%d]", row, column)
              .isTrue();
        }
      }
    }
  }

  @Test
  void closingTheDeviceClosesWhatItCreatedAndUseAfterCloseThrows() {
    DeviceBuffer buffer = device.allocate(4096);
    Stream stream = device.createStream();
    device.close();

    assertThatThrownBy(buffer::address).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(stream::synchronize).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> device.allocate(16)).isInstanceOf(IllegalStateException.class);
    device = null;
  }

  @Test
  void aStreamWaitingOnAWordRunsItsCopyOnlyAfterAnotherStreamWritesTheWord() {
    try (Arena arena = Arena.ofConfined();
        DeviceBuffer semaphore = device.allocate(16);
        DeviceBuffer source = device.allocate(4096);
        DeviceBuffer destination = device.allocate(4096)) {
      Stream waiter = device.createStream();
      Stream writer = device.createStream();
      device.fill(semaphore, 0, 16, (byte) 0, waiter);
      device.fill(destination, 0, 4096, (byte) 0, waiter);
      waiter.synchronize();

      device.waitValue32(semaphore, 4, 1, waiter);
      device.copy(destination, 0, source, 0, 4096, waiter);
      device.writeValue32(semaphore, 4, 2, waiter);
      // The copy is queued behind the wait; the source is filled only now, on the other stream.
      device.fill(source, 0, 4096, (byte) 0x5A, writer);
      device.writeValue32(semaphore, 4, 1, writer);
      waiter.synchronize();

      MemorySegment copied = arena.allocate(4096);
      device.download(destination, 0, copied, waiter);
      assertThat(copied.toArray(JAVA_BYTE)).containsOnly((byte) 0x5A);
      MemorySegment words = arena.allocate(16);
      device.download(semaphore, 0, words, waiter);
      assertThat(words.get(java.lang.foreign.ValueLayout.JAVA_INT, 4)).isEqualTo(2);
      assertThatThrownBy(() -> device.writeValue32(semaphore, 2, 1, waiter))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void hostSegmentsOnTheJavaHeapAreCopiedToo() {
    try (DeviceBuffer buffer = device.allocate(16)) {
      float[] values = {1, 2, 3, 4};
      device.upload(MemorySegment.ofArray(values), buffer, 0);
      float[] back = new float[4];
      device.download(buffer, 0, MemorySegment.ofArray(back), device.defaultStream());

      assertThat(back).containsExactly(1, 2, 3, 4);
      assertThat(MemorySegment.ofArray(back).get(JAVA_FLOAT, 12)).isEqualTo(4f);
    }
  }
}
