package dev.gpucomm.runtime.hostir;

import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.DeviceBackend;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.hostir.interp.CommunicatorFactory;
import dev.gpucomm.runtime.hostir.programs.HostIrProgramWorkload;
import dev.gpucomm.runtime.hostir.programs.ProgramResult;
import dev.gpucomm.runtime.hostir.programs.ProgramSettings;
import dev.gpucomm.runtime.testing.InMemoryStore;
import java.time.Duration;
import java.util.List;

/**
 * A world of ranks as threads of one JVM, each with its own device and communicators of one
 * backend, sharing an in-memory store: what a test needs to run a program workload end to end.
 */
public final class ProgramWorld {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private ProgramWorld() {}

  /** Runs {@code settings} on {@code worldSize} ranks; returns each rank's report. */
  public static List<ProgramResult> run(
      DeviceBackend backend, int worldSize, ProgramSettings settings) {
    InMemoryStore store = new InMemoryStore();
    return RankThreads.run(
        worldSize,
        TIMEOUT.multipliedBy(2),
        rank -> {
          RankTopology topology = new RankTopology(rank, worldSize, rank, worldSize);
          try (Device device = backend.open(rank);
              Communicator communicator = backend.createCommunicator(device, store, topology)) {
            return HostIrProgramWorkload.run(
                settings,
                device,
                communicator,
                CommunicatorFactory.of(backend, device, store, topology),
                store,
                topology,
                TIMEOUT);
          }
        });
  }
}
