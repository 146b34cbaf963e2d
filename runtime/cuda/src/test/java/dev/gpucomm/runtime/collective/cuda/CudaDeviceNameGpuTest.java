package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.runtime.device.Device;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A launcher reads rank 0's GPU model before any rank starts, to check a measured heuristic's table
 * against it: the name it reads is the one the rank's opened GPU gives.
 */
@Tag("gpu")
class CudaDeviceNameGpuTest {
  @Test
  void theNameReadBeforeARankOpensItsGpuIsTheNameTheOpenedGpuGives() {
    CudaBackend backend = new CudaBackend();
    assumeTrue(backend.deviceCount() > 0, "no GPU: " + backend.unavailableReason());

    String beforeOpening = backend.deviceName(0).orElseThrow();
    try (Device device = backend.open(0)) {
      assertThat(beforeOpening).isEqualTo(device.name()).startsWith("NVIDIA ");
    }
  }
}
