package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBackend;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;

/**
 * Builds extra communicators over the same ranks, each under its own name. Every rank must ask for
 * the same names in the same order (host programs are the same on every rank, so they do).
 */
@FunctionalInterface
public interface CommunicatorFactory {
  Communicator create(String name);

  /**
   * Communicators of {@code backend}, each rendezvousing under the keys {@code name/...} of the
   * job's store so that they do not mix with the rank's main communicator.
   */
  static CommunicatorFactory of(
      DeviceBackend backend, Device device, KeyValueStore store, RankTopology topology) {
    return name ->
        backend.createCommunicator(device, new PrefixedKeyValueStore(store, name + "/"), topology);
  }
}
