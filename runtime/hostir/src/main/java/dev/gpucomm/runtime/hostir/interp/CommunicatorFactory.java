package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.DeviceBackend;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;

/**
 * Builds extra communicators over the same ranks, each under its own name. Every rank must ask for
 * the same names, with the same limits, in the same order (host programs are the same on every
 * rank, so they do).
 */
@FunctionalInterface
public interface CommunicatorFactory {
  /** {@code maxBlocks} of a communicator whose kernels launch as many blocks as they choose. */
  int UNLIMITED = 0;

  /**
   * The communicator named {@code name}; with {@code maxBlocks} above 0, each of its kernels
   * launches at most that many thread blocks (CTAs).
   */
  Communicator create(String name, int maxBlocks);

  /**
   * Communicators of {@code backend}, each rendezvousing under the keys {@code name/...} of the
   * job's store so that they do not mix with the rank's main communicator.
   */
  static CommunicatorFactory of(
      DeviceBackend backend, Device device, KeyValueStore store, RankTopology topology) {
    return (name, maxBlocks) -> {
      KeyValueStore own = new PrefixedKeyValueStore(store, name + "/");
      return maxBlocks == UNLIMITED
          ? backend.createCommunicator(device, own, topology)
          : backend.createCommunicator(device, own, topology, maxBlocks);
    };
  }
}
