package dev.gpucomm.runtime.device.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.runtime.device.IpcHandle;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** CUDA IPC handles survive the trip through the rendezvous store byte for byte. */
class CudaIpcHandleTest {
  @Test
  void a64ByteHandleRoundTripsThroughItsTextForm() {
    byte[] handleBytes = new byte[CudaDriverApi.IPC_HANDLE_BYTES];
    new Random(42).nextBytes(handleBytes);
    IpcHandle handle = new IpcHandle(handleBytes, 4096, 64L << 20);

    IpcHandle received = IpcHandle.decode(handle.encode());

    assertThat(received).isEqualTo(handle);
    assertThat(received.handleBytes()).containsExactly(handleBytes);
    assertThat(received.allocationKey()).isEqualTo(handle.allocationKey()).hasSize(128);
  }

  @Test
  void twoBuffersOfOneAllocationShareTheirCacheKey() {
    byte[] handleBytes = new byte[CudaDriverApi.IPC_HANDLE_BYTES];
    handleBytes[5] = 9;

    assertThat(new IpcHandle(handleBytes, 0, 256).allocationKey())
        .isEqualTo(new IpcHandle(handleBytes, 1024, 512).allocationKey());
  }

  @Test
  void openingAHandleOfTheWrongSizeIsRefusedBeforeTheDriverSeesIt() {
    CudaDriverApi driver;
    try {
      driver = CudaDriverApi.get();
    } catch (IllegalStateException noDriver) {
      assumeTrue(false, "no NVIDIA driver on this host (assumption): " + noDriver.getMessage());
      return;
    }
    CudaDriverApi api = driver;

    assertThatThrownBy(() -> api.ipcOpen(new byte[63], 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("64 bytes, got 63");
  }
}
