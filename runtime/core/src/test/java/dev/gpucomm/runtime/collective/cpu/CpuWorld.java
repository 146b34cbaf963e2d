package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import dev.gpucomm.runtime.device.cpu.CpuDevice;
import dev.gpucomm.runtime.rendezvous.InMemoryStore;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * A world of ranks running as threads of this JVM, each with its own CPU device and communicator,
 * talking through the real transports (shared memory inside a simulated pod, TCP over the loopback
 * interface between pods) and an in-memory rendezvous store.
 */
final class CpuWorld implements AutoCloseable {
  private static final long RANK_TIMEOUT_SECONDS = 60;

  /** One rank: its device and communicator. */
  record Rank(int rank, CpuDevice device, CpuCommunicator communicator) {}

  private final int worldSize;
  private final ExecutorService threads;
  private final InMemoryStore store = new InMemoryStore();
  private final List<CpuDevice> devices = new ArrayList<>();
  private final List<Rank> ranks;

  /** A job of {@code pods} simulated pods of {@code ranksPerPod} ranks, e.g. "3 pods × 2". */
  record Layout(int pods, int ranksPerPod) {
    int worldSize() {
      return pods * ranksPerPod;
    }

    @Override
    public String toString() {
      return pods + " pods × " + ranksPerPod;
    }
  }

  private CpuWorld(Layout layout, CpuBackendConfig config) {
    int worldSize = layout.worldSize();
    int ranksPerPod = layout.ranksPerPod();
    this.worldSize = worldSize;
    this.threads = Executors.newFixedThreadPool(worldSize, Thread.ofPlatform().daemon().factory());
    CpuBackend backend = new CpuBackend(config);
    for (int rank = 0; rank < worldSize; rank++) {
      devices.add(backend.open(rank % ranksPerPod));
    }
    List<Rank> built;
    try {
      built =
          run(
              rank -> {
                CpuDevice device = devices.get(rank);
                RankTopology topology =
                    new RankTopology(rank, worldSize, rank % ranksPerPod, ranksPerPod);
                return new Rank(
                    rank,
                    device,
                    CpuCommunicator.create(
                        device, store, topology, InetAddress.getLoopbackAddress()));
              });
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    this.ranks = built;
  }

  static CpuWorld start(int worldSize, CpuBackendConfig config) {
    return new CpuWorld(new Layout(1, worldSize), config);
  }

  static CpuWorld start(Layout layout, CpuBackendConfig config) {
    return new CpuWorld(layout, config);
  }

  int size() {
    return worldSize;
  }

  Rank rank(int rank) {
    return ranks.get(rank);
  }

  /** Runs {@code body} on every rank at once and returns the results in rank order. */
  <T> List<T> onEveryRank(Function<Rank, T> body) {
    return run(rank -> body.apply(ranks.get(rank)));
  }

  private <T> List<T> run(Function<Integer, T> body) {
    List<Future<T>> futures = new ArrayList<>();
    for (int rank = 0; rank < worldSize; rank++) {
      int current = rank;
      futures.add(threads.submit(() -> body.apply(current)));
    }
    List<T> results = new ArrayList<>();
    List<RankFailure> failures = new ArrayList<>();
    for (int rank = 0; rank < worldSize; rank++) {
      try {
        results.add(futures.get(rank).get(RANK_TIMEOUT_SECONDS, TimeUnit.SECONDS));
      } catch (ExecutionException e) {
        failures.add(new RankFailure(rank, e.getCause()));
      } catch (InterruptedException | TimeoutException e) {
        failures.add(new RankFailure(rank, e));
      }
    }
    if (failures.isEmpty()) {
      return results;
    }
    if (failures.size() == 1 && failures.getFirst().cause() instanceof RuntimeException only) {
      throw only;
    }
    // Every rank's failure goes into the message: the first is often only a symptom of another's.
    StringBuilder message = new StringBuilder(failures.size() + " ranks failed:");
    failures.forEach(
        f -> message.append("\n  rank ").append(f.rank()).append(": ").append(f.cause()));
    RankFailuresException combined =
        new RankFailuresException(message.toString(), failures.getFirst().cause());
    failures.stream().skip(1).forEach(f -> combined.addSuppressed(f.cause()));
    throw combined;
  }

  private record RankFailure(int rank, Throwable cause) {}

  /** Failures of several ranks in one call. */
  static final class RankFailuresException extends RuntimeException {
    RankFailuresException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  @Override
  public void close() {
    if (ranks != null) {
      ranks.forEach(rank -> rank.communicator().close());
    }
    devices.forEach(CpuDevice::close);
    threads.shutdownNow();
    store.close();
  }
}
