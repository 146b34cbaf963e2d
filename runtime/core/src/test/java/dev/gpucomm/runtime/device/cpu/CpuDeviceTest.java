package dev.gpucomm.runtime.device.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.collective.cpu.CpuBackend;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.IpcHandle;
import dev.gpucomm.runtime.device.Stream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CpuDeviceTest {
  @TempDir Path sharedMemory;
  private CpuBackend backend;
  private CpuDevice device;

  @BeforeEach
  void openDevice() {
    backend =
        new CpuBackend(
            CpuBackendConfig.defaults("device-test").withSharedMemoryDirectory(sharedMemory));
    device = backend.open(3);
  }

  @AfterEach
  void closeDevice() {
    device.close();
  }

  @Test
  void aBufferLargerThanTheHostCanHoldIsRefusedInOneLine() {
    long exabyte = 1L << 60;
    assertThatThrownBy(() -> device.allocate(exabyte))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "the cpu backend cannot allocate " + exabyte + " bytes of host memory")
        .hasMessageNotContaining("\n");
  }

  @Test
  void describesItselfAsACpuDeviceOfItsLocalRank() {
    assertThat(backend.kind()).isEqualTo(DeviceKind.CPU);
    assertThat(backend.deviceCount()).isEqualTo(1);
    assertThat(backend.unavailableReason()).isEmpty();
    assertThat(device.kind()).isEqualTo(DeviceKind.CPU);
    assertThat(device.ordinal()).isEqualTo(3);
    assertThat(device.name()).startsWith("cpu (");
    assertThat(device.computeCapability()).isEmpty();
  }

  @Test
  void theBackendFoundByClassNameNeedsNoArgumentsAndUsesTheDefaults() throws Exception {
    CpuBackend byName =
        (CpuBackend)
            Class.forName("dev.gpucomm.runtime.collective.cpu.CpuBackend")
                .getConstructor()
                .newInstance();
    String job = System.getenv(CpuBackend.JOB_ENV);
    assertThat(byName.config().jobName())
        .isEqualTo(
            CpuBackendConfig.defaults(job == null || job.isBlank() ? "local" : job).jobName());
    assertThat(byName.config().stagingBytes()).isEqualTo(CpuBackendConfig.DEFAULT_STAGING_BYTES);
  }

  @Test
  void uploadCopyFillAndDownloadHappenInStreamOrder() {
    DeviceBuffer source = device.allocate(256);
    DeviceBuffer target = device.allocate(256);
    Stream stream = device.createStream();
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment host = arena.allocate(256);
      for (int i = 0; i < 256; i++) {
        host.set(ValueLayout.JAVA_BYTE, i, (byte) i);
      }
      device.upload(host, source, 0);
      device.copy(target, 0, source, 0, 256, stream);
      device.fill(target, 16, 32, (byte) 0x55, stream);
      device.copy(target, 100, source, 0, 10, stream);

      MemorySegment result = arena.allocate(256);
      device.download(target, 0, result, stream);
      for (int i = 0; i < 256; i++) {
        byte expected =
            i >= 16 && i < 48 ? (byte) 0x55 : i >= 100 && i < 110 ? (byte) (i - 100) : (byte) i;
        assertThat(result.get(ValueLayout.JAVA_BYTE, i)).as("byte %d", i).isEqualTo(expected);
      }
    }
  }

  @Test
  void rangesOutsideABufferAreRefusedWhenTheCallIsMade() {
    DeviceBuffer buffer = device.allocate(64);
    assertThatThrownBy(() -> device.copy(buffer, 60, buffer, 0, 8, device.defaultStream()))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessage("copy destination: 8 bytes at offset 60 do not fit a buffer of 64 bytes");
    assertThatThrownBy(() -> buffer.slice(-1, 4)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> device.allocate(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot allocate -1 bytes");
  }

  @Test
  void slicesShareTheirParentsMemoryAndDieWithIt() {
    CpuBuffer parent = device.allocate(64);
    DeviceBuffer slice = parent.slice(16, 8);
    assertThat(slice.byteSize()).isEqualTo(8);
    assertThat(slice.address()).isEqualTo(parent.address() + 16);
    CpuMemory.segmentOf(slice).fill((byte) 7);
    assertThat(parent.segment().get(ValueLayout.JAVA_BYTE, 16)).isEqualTo((byte) 7);
    assertThat(parent.segment().get(ValueLayout.JAVA_BYTE, 24)).isZero();

    slice.close(); // a view owns nothing
    assertThat(parent.segment().get(ValueLayout.JAVA_BYTE, 16)).isEqualTo((byte) 7);
    parent.close();
    assertThatThrownBy(() -> CpuMemory.segmentOf(slice))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void everythingIsClosedOnceAndRefusesUseAfterClose() {
    CpuBuffer buffer = device.allocate(16);
    Stream stream = device.createStream();
    Event event = device.createEvent();
    buffer.close();
    buffer.close();
    stream.close();
    stream.close();
    event.close();
    event.close();
    assertThatThrownBy(buffer::segment).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(stream::synchronize).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> CpuStream.of(stream).launch("late", () -> {}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageEndingWith("is closed");
    assertThatThrownBy(event::synchronize).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aShareableBufferIsASharedMemoryFileNamedByItsHandleAndMappedOnceByPeers()
      throws IOException {
    CpuSharedBuffer shared = device.allocateShareable(8192);
    IpcHandle handle = shared.handle();
    Path file = Path.of(new String(handle.handleBytes(), StandardCharsets.UTF_8));
    assertThat(file).isEqualTo(shared.path());
    assertThat(file.getParent()).isEqualTo(sharedMemory.toAbsolutePath());
    assertThat(file.getFileName().toString()).startsWith("gpucomm-device-test-l3-p");
    assertThat(Files.size(file)).isEqualTo(8192);

    try (CpuDevice peerDevice = backend.open(4)) {
      CpuPeerBuffer whole = peerDevice.openPeer(IpcHandle.decode(handle.encode()));
      CpuPeerBuffer part = peerDevice.openPeer(new IpcHandle(handle.handleBytes(), 4096, 16));
      assertThat(peerDevice.peerMappingCount()).isEqualTo(1);

      shared.segment().set(ValueLayout.JAVA_INT, 4096, 0x1234_5678);
      assertThat(part.segment().get(ValueLayout.JAVA_INT, 0)).isEqualTo(0x1234_5678);
      whole.segment().set(ValueLayout.JAVA_INT, 0, 42);
      assertThat(shared.segment().get(ValueLayout.JAVA_INT, 0)).isEqualTo(42);

      // The owner closing deletes the name; the peer's mapping keeps the memory alive.
      shared.close();
      assertThat(file).doesNotExist();
      assertThat(part.segment().get(ValueLayout.JAVA_INT, 0)).isEqualTo(0x1234_5678);

      whole.close();
      assertThat(peerDevice.peerMappingCount()).isEqualTo(1);
      part.close();
      assertThat(peerDevice.peerMappingCount()).isZero();
      assertThatThrownBy(part::segment).isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void handlesThatNameNoPeerFileAreRefusedWithTheReason() {
    CpuSharedBuffer shared = device.allocateShareable(64);
    IpcHandle handle = shared.handle();
    assertThatThrownBy(() -> device.openPeer(new IpcHandle(handle.handleBytes(), 32, 64)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reaches past the end of the peer's allocation of 64 bytes");
    shared.close();
    assertThatThrownBy(() -> device.openPeer(handle))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("does not exist: the peer closed it, or the ranks do not share");
    assertThatThrownBy(
            () ->
                device.openPeer(
                    new IpcHandle("/etc/passwd".getBytes(StandardCharsets.UTF_8), 0, 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a cpu-backend IPC handle");
  }

  @Test
  void closingTheDeviceClosesWhatItCreatedAndDeletesItsFiles() throws IOException {
    CpuBuffer buffer = device.allocate(64);
    CpuSharedBuffer shared = device.allocateShareable(64);
    Stream stream = device.createStream();
    device.fill(buffer, 0, 64, (byte) 1, stream);
    device.close();

    assertThatThrownBy(buffer::segment).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(shared::segment).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> CpuStream.of(stream).launch("late", () -> {}))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> device.allocate(1)).isInstanceOf(IllegalStateException.class);
    try (var files = Files.list(sharedMemory)) {
      assertThat(files.toList()).isEmpty();
    }
  }

  @Test
  void streamsOfOtherDevicesAndOtherBackendsAreRefused() {
    try (CpuDevice other = backend.open(0)) {
      DeviceBuffer buffer = device.allocate(16);
      assertThatThrownBy(() -> device.fill(buffer, 0, 16, (byte) 0, other.defaultStream()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("belongs to another device");
    }
    assertThatThrownBy(() -> CpuMemory.segmentOf(new ForeignBuffer()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the cpu backend cannot use ForeignBuffer");
  }

  @Test
  void theDefaultSharedMemoryDirectoryIsDevShmWhereItExists() {
    Path expected =
        Files.isDirectory(Path.of("/dev/shm")) && Files.isWritable(Path.of("/dev/shm"))
            ? Path.of("/dev/shm")
            : Path.of(System.getProperty("java.io.tmpdir"));
    assertThat(CpuBackendConfig.defaultSharedMemoryDirectory()).isEqualTo(expected);
    assertThat(List.of(CpuBackendConfig.defaults("a b/c").jobName())).containsExactly("a_b_c");
  }

  /** A buffer of some other backend. */
  private static final class ForeignBuffer implements DeviceBuffer {
    @Override
    public long address() {
      return 0;
    }

    @Override
    public long byteSize() {
      return 0;
    }

    @Override
    public DeviceBuffer slice(long offset, long bytes) {
      return this;
    }

    @Override
    public void close() {}
  }
}
