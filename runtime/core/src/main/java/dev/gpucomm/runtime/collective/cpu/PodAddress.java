package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.runtime.launch.EnvVars;
import dev.gpucomm.runtime.rendezvous.RendezvousAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Map;

/**
 * The address at which ranks of other pods reach this pod's ranks: {@value #ENV} when set (the
 * pod's IP), else the local address of the route to the rendezvous host (the interface the pods
 * already share), else the loopback address (every pod on this host).
 */
final class PodAddress {
  /** The environment variable that names this pod's address explicitly. */
  static final String ENV = "GPUCOMM_POD_ADDRESS";

  private PodAddress() {}

  static InetAddress of(Map<String, String> env) {
    String explicit = env.get(ENV);
    if (explicit != null && !explicit.isBlank()) {
      try {
        return InetAddress.getByName(explicit.strip());
      } catch (UnknownHostException e) {
        throw new IllegalArgumentException(ENV + ": cannot resolve '" + explicit + "'", e);
      }
    }
    String rendezvous = env.get(EnvVars.RENDEZVOUS);
    if (rendezvous == null || rendezvous.isBlank()) {
      return InetAddress.getLoopbackAddress();
    }
    RendezvousAddress store = RendezvousAddress.parse(rendezvous, EnvVars.RENDEZVOUS);
    // Connecting a datagram socket sends nothing; it only asks the kernel for the route.
    try (DatagramSocket probe = new DatagramSocket()) {
      probe.connect(new InetSocketAddress(store.host(), store.port()));
      InetAddress local = probe.getLocalAddress();
      return local == null || local.isAnyLocalAddress() ? InetAddress.getLoopbackAddress() : local;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot find the local address that reaches the rendezvous host " + store.host(), e);
    }
  }
}
