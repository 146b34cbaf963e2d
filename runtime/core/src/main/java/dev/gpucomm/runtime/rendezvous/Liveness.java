package dev.gpucomm.runtime.rendezvous;

import java.time.Duration;

/**
 * How ranks and the store show each other that they are alive: every rank sends a heartbeat on its
 * watch connection each {@code beatInterval} and the store echoes it. A cut network link sends no
 * reset and closes no connection, so silence is the only sign of it: the store declares the ranks
 * it has not heard from for {@code silenceLimit} failed, naming them, and a rank that hears no echo
 * for longer gives up on the store.
 */
public record Liveness(Duration beatInterval, Duration silenceLimit) {
  /** Generous enough for a busy node's scheduling and garbage-collection pauses. */
  public static final Liveness DEFAULT =
      new Liveness(Duration.ofSeconds(1), Duration.ofSeconds(10));

  public Liveness {
    if (!beatInterval.isPositive()) {
      throw new IllegalArgumentException("beatInterval must be positive, got " + beatInterval);
    }
    if (silenceLimit.compareTo(beatInterval.multipliedBy(3)) < 0) {
      throw new IllegalArgumentException(
          "silenceLimit must span at least three heartbeats, got "
              + silenceLimit
              + " for beats every "
              + beatInterval);
    }
  }

  /**
   * How long a rank waits for the store's echo: longer than the store waits for a rank, so that
   * where the store is still reachable it names the silent ranks before they give up on it.
   */
  public Duration storeSilenceLimit() {
    return silenceLimit.plus(silenceLimit.dividedBy(2));
  }

  /**
   * Ranks silent this long when another passes the limit fell silent with it (the ranks of one cut
   * pod stop at once, their last beats a beat apart) and are named together.
   */
  Duration sharedSilence() {
    return silenceLimit.dividedBy(2);
  }
}
