package dev.gpucomm.runtime.workload;

import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import dev.gpucomm.runtime.report.ProgressDisplay;
import dev.gpucomm.runtime.spec.LoadedJob;
import java.time.Duration;

/**
 * What a workload gets to run on one rank: the job, where the rank sits, its open device and
 * communicator, the store (to gather results on rank 0) and how long to wait for peers.
 *
 * @param dumpIr print host-IR programs before and after each pass (gpucomm run --dump-ir)
 */
public record RankContext(
    LoadedJob job,
    RankTopology topology,
    Device device,
    Communicator communicator,
    KeyValueStore store,
    Duration rendezvousTimeout,
    ProgressDisplay progress,
    boolean dumpIr) {

  public int rank() {
    return topology.rank();
  }

  public boolean isRankZero() {
    return topology.rank() == 0;
  }
}
