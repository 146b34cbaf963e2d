package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.collective.cpu.CpuBackend;
import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import dev.gpucomm.runtime.device.cpu.CpuDevice;
import dev.gpucomm.runtime.hostir.CountingCommunicator;
import dev.gpucomm.runtime.hostir.CountingDevice;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One rank of a CPU world for interpreter tests: its device (counted), and communicators for the
 * main and the worker streams that all count into one set of counters.
 */
final class CpuRank implements AutoCloseable {
  private static final AtomicInteger JOBS = new AtomicInteger();

  private final KeyValueStore store;
  final RankTopology topology;
  final CpuDevice cpu;
  final CountingDevice device;
  final CountingCommunicator counts;
  final StreamCommunicators communicators;

  private CpuRank(CpuBackend backend, KeyValueStore store, int rank, int worldSize) {
    this.store = store;
    this.topology = new RankTopology(rank, worldSize, rank, worldSize);
    this.cpu = backend.open(rank);
    this.device = new CountingDevice(cpu);
    Communicator main = backend.createCommunicator(cpu, store, topology);
    this.counts = new CountingCommunicator(main);
    CommunicatorFactory factory = CommunicatorFactory.of(backend, cpu, store, topology);
    this.communicators =
        StreamCommunicators.perStream(
            counts,
            (name, maxBlocks) -> new CountingCommunicator(factory.create(name, maxBlocks), counts),
            "test/");
  }

  /** A backend whose job name is unique to this test run, with small shared buffers. */
  static CpuBackend backend() {
    return new CpuBackend(
        CpuBackendConfig.defaults(
                "hostir-interp-" + ProcessHandle.current().pid() + "-" + JOBS.incrementAndGet())
            .withBufferSizes(64 << 10, 4 << 10)
            .withWaitTimeout(Duration.ofSeconds(30)));
  }

  static CpuRank open(CpuBackend backend, KeyValueStore store, int rank, int worldSize) {
    return new CpuRank(backend, store, rank, worldSize);
  }

  /** Closes once every rank is done: closing a communicator makes waiting peers give up. */
  @Override
  public void close() {
    store.barrier("test/closing", topology.worldSize(), Duration.ofSeconds(60));
    communicators.close();
    counts.close();
    cpu.close();
  }
}
