package dev.gpucomm.runtime.collective.cuda.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * Which `diag --store` addresses are this host's: a refused bind there is a taken port (the run's
 * failure), elsewhere the command's usage error.
 */
class StoreAddressTest {
  @Test
  void wildcardsLoopbacksAndTheHostsOwnAddressesAreItsOwn() throws Exception {
    assertThat(CudaDiagnostics.isOwnAddress(InetAddress.getByName("0.0.0.0"))).isTrue();
    assertThat(CudaDiagnostics.isOwnAddress(InetAddress.getByName("127.0.0.1"))).isTrue();
    assertThat(CudaDiagnostics.isOwnAddress(InetAddress.getByName("127.0.0.2")))
        .as("all of 127/8 is the loopback's")
        .isTrue();
    assertThat(CudaDiagnostics.isOwnAddress(InetAddress.getByName("::1"))).isTrue();
  }

  @Test
  void anAddressOfNoInterfaceHereIsNot() throws Exception {
    // TEST-NET-1 (RFC 5737): documentation only, never a host's
    assertThat(CudaDiagnostics.isOwnAddress(InetAddress.getByName("192.0.2.1"))).isFalse();
  }
}
