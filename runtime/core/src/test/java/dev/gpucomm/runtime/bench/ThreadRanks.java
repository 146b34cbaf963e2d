package dev.gpucomm.runtime.bench;

import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.collective.cpu.CpuBackend;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import dev.gpucomm.runtime.rendezvous.RendezvousAddress;
import dev.gpucomm.runtime.rendezvous.TcpStoreClient;
import dev.gpucomm.runtime.rendezvous.TcpStoreServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * Ranks as threads of the test JVM: each has its own CPU device, communicator and connection to a
 * real rendezvous store, exactly as a rank process has; only the process boundary is missing.
 */
final class ThreadRanks {
  private static final AtomicInteger WORLDS = new AtomicInteger();

  /** What one rank gets to work with. */
  record Rank(int rank, Device device, Communicator communicator, TcpStoreClient store) {}

  /** A rank's work. */
  @FunctionalInterface
  interface RankBody<T> {
    T run(Rank rank);
  }

  private ThreadRanks() {}

  /**
   * Runs {@code body} on every rank of a fresh world of {@code worldSize}. Returns the results in
   * rank order; the first failure (in rank order) is rethrown.
   */
  static <T> List<T> run(int worldSize, RankBody<T> body) {
    return run(worldSize, worldSize, body);
  }

  /** As {@link #run(int, RankBody)}, with the ranks in pods of {@code ranksPerPod}. */
  static <T> List<T> run(int worldSize, int ranksPerPod, RankBody<T> body) {
    return run(worldSize, ranksPerPod, config -> config, body);
  }

  /** As {@link #run(int, int, RankBody)}, on a CPU backend configured by {@code configure}. */
  static <T> List<T> run(
      int worldSize, int ranksPerPod, UnaryOperator<CpuBackendConfig> configure, RankBody<T> body) {
    CpuBackend backend =
        new CpuBackend(
            configure.apply(
                CpuBackendConfig.defaults(
                        "bench-test-"
                            + ProcessHandle.current().pid()
                            + "-"
                            + WORLDS.incrementAndGet())
                    .withWaitTimeout(Duration.ofSeconds(20))));
    try (TcpStoreServer server = TcpStoreServer.start(0);
        ExecutorService threads = Executors.newFixedThreadPool(worldSize)) {
      RendezvousAddress address = new RendezvousAddress("127.0.0.1", server.port());
      List<Future<T>> futures = new ArrayList<>();
      for (int r = 0; r < worldSize; r++) {
        int rank = r;
        futures.add(
            threads.submit(
                () -> {
                  try (TcpStoreClient store =
                          TcpStoreClient.connect(address, rank, worldSize, Duration.ofSeconds(10));
                      Device device = backend.open(rank);
                      Communicator communicator =
                          backend.createCommunicator(
                              device,
                              store,
                              new RankTopology(rank, worldSize, rank % ranksPerPod, ranksPerPod))) {
                    return body.run(new Rank(rank, device, communicator, store));
                  }
                }));
      }
      List<T> results = new ArrayList<>();
      RuntimeException first = null;
      for (Future<T> future : futures) {
        try {
          results.add(future.get(120, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
          if (first == null) {
            first =
                e.getCause() instanceof RuntimeException runtime
                    ? runtime
                    : new IllegalStateException(e.getCause());
          }
          results.add(null);
        } catch (InterruptedException | TimeoutException e) {
          throw new IllegalStateException("a rank did not finish", e);
        }
      }
      if (first != null) {
        throw first;
      }
      return results;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
