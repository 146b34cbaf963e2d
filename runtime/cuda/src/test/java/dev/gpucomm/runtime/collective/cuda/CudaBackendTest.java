package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.device.cuda.CudaException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CudaBackendTest {
  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          GPUCOMM_FUSED_CLUSTER  | maybe | GPUCOMM_FUSED_CLUSTER must be on or off, got 'maybe'
          GPUCOMM_LAMPORT_BLOCKS | many  | GPUCOMM_LAMPORT_BLOCKS must be a whole number, got 'many'
          GPUCOMM_HOST_PATH      | yes   | GPUCOMM_HOST_PATH must be auto, on or off, got 'yes'
          """)
  void aSettingTheRanksWouldRefuseIsAUsageErrorBeforeAnyDeviceOpens(
      String name, String value, String message) {
    assertThatThrownBy(() -> new CudaBackend().requireValidSettings(Map.of(name, value)))
        .isInstanceOf(UsageException.class)
        .hasMessage(message);
  }

  @Test
  void settingsTheRanksTakeAreLetThrough() {
    new CudaBackend()
        .requireValidSettings(
            Map.of("GPUCOMM_FUSED_CLUSTER", "on", "GPUCOMM_LAMPORT_BLOCKS", "64"));
  }

  @Test
  void countingDevicesNeverThrowsAndExplainsAZero() {
    CudaBackend backend = new CudaBackend();

    int count = backend.deviceCount();

    assertThat(backend.kind()).isEqualTo(DeviceKind.CUDA);
    assertThat(count).isNotNegative();
    if (count == 0) {
      assertThat(backend.unavailableReason()).isNotBlank();
    } else {
      assertThat(backend.unavailableReason()).isEmpty();
    }
  }

  @Test
  void openingWithoutAGpuSaysWhy() {
    CudaBackend backend = new CudaBackend();
    assumeTrue(backend.deviceCount() == 0, "this host has a GPU (assumption)");

    assertThatThrownBy(() -> backend.open(0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("no CUDA device: ")
        .hasMessageContaining(backend.unavailableReason());
  }

  @Test
  void withoutAGpuTheBackendNamesNoDeviceAndSaysWhyOnlyWhenOpening() {
    CudaBackend backend = new CudaBackend();
    assumeTrue(backend.deviceCount() == 0, "this host has a GPU (assumption)");

    assertThat(backend.deviceName(0)).isEmpty();
  }

  @Test
  void eachRankOpensItsOwnVisibleGpu() {
    assertThat(CudaBackend.visibleOrdinal(0, 4, null)).isZero();
    assertThat(CudaBackend.visibleOrdinal(3, 4, "4,5,6,7")).isEqualTo(3);
  }

  @Test
  void aPodWithFewerGpusThanRanksIsRefusedInsteadOfSharingOne() {
    assertThatThrownBy(() -> CudaBackend.visibleOrdinal(2, 2, "0,1"))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "GPU 2 is not visible: this process sees 2 GPUs (CUDA_VISIBLE_DEVICES=0,1); every rank"
                + " needs its own GPU, so give the pod at least spec.ranksPerPod GPUs");
    assertThatThrownBy(() -> CudaBackend.visibleOrdinal(1, 1, null))
        .hasMessageStartingWith("GPU 1 is not visible: this process sees 1 GPU;");
    assertThatThrownBy(() -> CudaBackend.visibleOrdinal(-1, 1, null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void errorsNameTheCallTheCudaErrorAndTheDevice() {
    CudaException e = new CudaException("cuMemAlloc(1024 B)", "CUDA_ERROR_OUT_OF_MEMORY", 3);

    assertThat(e.getMessage())
        .isEqualTo("cuMemAlloc(1024 B) failed on cuda device 3: CUDA_ERROR_OUT_OF_MEMORY");
    assertThat(e.errorName()).isEqualTo("CUDA_ERROR_OUT_OF_MEMORY");
    assertThat(e.device()).isEqualTo(3);
  }
}
