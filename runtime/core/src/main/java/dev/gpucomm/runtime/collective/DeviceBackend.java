package dev.gpucomm.runtime.collective;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.util.Map;
import java.util.Optional;

/**
 * A family of devices (cpu or cuda): how many this host has, opening one, and building
 * communicators.
 */
public interface DeviceBackend {
  DeviceKind kind();

  /** Devices on this host; 0 when the backend cannot run here. Never throws. */
  int deviceCount();

  /** Why {@link #deviceCount()} is 0, for messages; empty when devices are present. */
  String unavailableReason();

  /**
   * Refuses a setting of this backend in {@code env} (its ranks' environment) that the ranks would
   * refuse only once their devices are up; a launcher asks before it starts any rank. Touches no
   * device.
   *
   * @throws dev.gpucomm.runtime.UsageException naming the variable
   */
  default void requireValidSettings(Map<String, String> env) {}

  /**
   * The name the device of the rank with this local rank gives once opened, as its ranks name their
   * model to the measured heuristic; empty where the backend cannot say without opening it. Never
   * throws.
   */
  default Optional<String> deviceName(int localRank) {
    return Optional.empty();
  }

  /** Opens the device of the rank with this local rank (one device per rank process). */
  Device open(int localRank);

  /**
   * Builds the rank's communicator: exchanges IPC handles with the node's ranks and any
   * library-level ids (the NCCL unique id) through the store, and checks that peer memory works.
   */
  Communicator createCommunicator(Device device, KeyValueStore store, RankTopology topology);

  /**
   * Like {@link #createCommunicator(Device, KeyValueStore, RankTopology)}, with every kernel the
   * communicator launches limited to {@code maxBlocks} thread blocks (CTAs), so that its
   * collectives occupy at most that many multiprocessors and leave the others to work on other
   * streams.
   *
   * @throws IllegalArgumentException when {@code maxBlocks} is below 1
   */
  Communicator createCommunicator(
      Device device, KeyValueStore store, RankTopology topology, int maxBlocks);
}
