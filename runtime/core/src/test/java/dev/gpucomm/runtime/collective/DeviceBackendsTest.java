package dev.gpucomm.runtime.collective;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.collective.cpu.CpuBackend;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Probing a backend never throws, and says in words why one cannot be used. */
class DeviceBackendsTest {
  /**
   * A GPU backend on a host without its native library, as the CUDA backend is on a host without
   * the driver: loading its class fails before any of its methods runs.
   */
  public static final class BackendWithoutItsNativeLibrary implements DeviceBackend {
    static {
      System.loadLibrary("gpucomm-test-library-that-is-nowhere");
    }

    private final CpuBackend host = new CpuBackend();

    @Override
    public DeviceKind kind() {
      return DeviceKind.CUDA;
    }

    @Override
    public int deviceCount() {
      return host.deviceCount();
    }

    @Override
    public String unavailableReason() {
      return host.unavailableReason();
    }

    @Override
    public Device open(int localRank) {
      return host.open(localRank);
    }

    @Override
    public Communicator createCommunicator(
        Device device, KeyValueStore store, RankTopology topology) {
      return host.createCommunicator(device, store, topology);
    }

    @Override
    public Communicator createCommunicator(
        Device device, KeyValueStore store, RankTopology topology, int maxBlocks) {
      return host.createCommunicator(device, store, topology, maxBlocks);
    }
  }

  @Test
  void aBackendWhoseNativeLibraryIsMissingSaysSoInWords() {
    DeviceBackends backends =
        new DeviceBackends("probe-test", BackendWithoutItsNativeLibrary.class.getName());

    DeviceBackends.Probe probe = backends.probe(DeviceKind.CUDA);

    assertThat(probe.usable()).isFalse();
    assertThat(probe.reason())
        .startsWith(
            "the cuda backend failed to load: a native library could not be loaded (no"
                + " gpucomm-test-library-that-is-nowhere in java.library.path")
        .doesNotContain("Error");
  }

  @Test
  void aBackendThatIsNotThereRefusesNoSettingBeforeTheRun() {
    DeviceBackends withoutCuda = new DeviceBackends("probe-test", "dev.gpucomm.NoSuchBackend");
    DeviceBackends cudaWithoutItsLibrary =
        new DeviceBackends("probe-test", BackendWithoutItsNativeLibrary.class.getName());
    Map<String, String> env = Map.of("GPUCOMM_FUSED_CLUSTER", "maybe");

    assertThatCode(() -> withoutCuda.requireValidSettings(DeviceKind.CUDA, env))
        .doesNotThrowAnyException();
    assertThatCode(() -> cudaWithoutItsLibrary.requireValidSettings(DeviceKind.CUDA, env))
        .doesNotThrowAnyException();
    assertThatCode(() -> withoutCuda.requireValidSettings(DeviceKind.CPU, env))
        .doesNotThrowAnyException();
  }

  @Test
  void aBuildWithoutTheBackendSaysSo() {
    DeviceBackends backends = new DeviceBackends("probe-test", "dev.gpucomm.NoSuchBackend");

    assertThat(backends.probe(DeviceKind.CUDA).reason())
        .isEqualTo("the cuda backend is not part of this build");
  }
}
