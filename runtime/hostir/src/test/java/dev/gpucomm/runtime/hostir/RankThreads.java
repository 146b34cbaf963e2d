package dev.gpucomm.runtime.hostir;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs the ranks of a world as threads of one JVM and collects what each returns. */
public final class RankThreads {
  private RankThreads() {}

  /** The work of one rank. */
  @FunctionalInterface
  public interface RankBody<T> {
    T run(int rank) throws Exception;
  }

  /** Runs {@code body} on ranks 0..worldSize-1 at once; rethrows the first rank's failure. */
  public static <T> List<T> run(int worldSize, Duration timeout, RankBody<T> body) {
    ExecutorService executor = Executors.newFixedThreadPool(worldSize);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int rank = 0; rank < worldSize; rank++) {
        int current = rank;
        futures.add(executor.submit(() -> body.run(current)));
      }
      List<T> results = new ArrayList<>();
      long deadline = System.nanoTime() + timeout.toNanos();
      for (int rank = 0; rank < worldSize; rank++) {
        try {
          results.add(futures.get(rank).get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS));
        } catch (ExecutionException e) {
          throw new AssertionError("rank " + rank + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
          throw new AssertionError("rank " + rank + " did not finish within " + timeout, e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError("interrupted", e);
        }
      }
      return results;
    } finally {
      executor.shutdownNow();
    }
  }
}
