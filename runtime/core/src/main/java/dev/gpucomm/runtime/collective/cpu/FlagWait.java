package dev.gpucomm.runtime.collective.cpu;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Release/acquire access to 32-bit flags in shared memory, and polling a flag until it reaches a
 * value, with a timeout.
 *
 * <p>Flags count upwards (epochs, message counts) and wrap around harmlessly: a flag has reached
 * {@code target} when {@code flag - target} is non-negative as a 32-bit int. Waiting spins briefly,
 * then yields, then parks for short intervals, so that ranks that share few cores (ranks as threads
 * in tests, CI machines) leave the CPU to the rank being waited for.
 */
final class FlagWait {
  private static final VarHandle FLAG = ValueLayout.JAVA_INT.varHandle();
  private static final int SPINS_WITH_SPARE_CORES = 2_000;
  private static final int SPINS_WHEN_OVERSUBSCRIBED = 20;
  private static final int YIELDS = 200;
  private static final long PARK_NANOS = 20_000;

  /** Abort flag value of a peer whose collective failed. */
  static final int ABORT_FAILED = 1;

  /** Abort flag value of a peer that closed its communicator. */
  static final int ABORT_CLOSED = 2;

  private final int spins;
  private final long timeoutNanos;
  private final Duration timeout;
  private final int rank;
  private final MemorySegment ownSignals;
  private final long[] abortFlags;
  private volatile String localFailure;

  FlagWait(Duration timeout, int rank, MemorySegment ownSignals, SignalLayout layout) {
    this.timeout = timeout;
    this.timeoutNanos = timeout.toNanos();
    // Spinning only pays when every rank has a core; otherwise it steals the core of the rank
    // being waited for (CI machines, ranks as threads in tests), so yield almost at once.
    this.spins =
        layout.worldSize() < Runtime.getRuntime().availableProcessors()
            ? SPINS_WITH_SPARE_CORES
            : SPINS_WHEN_OVERSUBSCRIBED;
    this.rank = rank;
    this.ownSignals = ownSignals;
    this.abortFlags = new long[layout.worldSize()];
    for (int peer = 0; peer < abortFlags.length; peer++) {
      abortFlags[peer] = layout.offset(SignalLayout.ABORT, peer);
    }
  }

  /** Makes every wait of this rank give up: a collective of this rank failed. */
  void abortLocally(String reason) {
    localFailure = reason;
  }

  Duration timeout() {
    return timeout;
  }

  /** Stores {@code value} so that every write before it is visible to whoever reads it. */
  static void publish(MemorySegment signals, long offset, int value) {
    FLAG.setRelease(signals, offset, value);
  }

  /** Reads a flag so that the writes published before it are visible afterwards. */
  static int read(MemorySegment signals, long offset) {
    return (int) FLAG.getAcquire(signals, offset);
  }

  static boolean reached(int flag, int target) {
    return flag - target >= 0;
  }

  /**
   * Polls until the flag reaches {@code target}; false when the timeout passes first. Once the wait
   * is slow, it also watches the abort flags, and throws {@link PeerFailedException} when a peer
   * (or another collective of this rank) has failed, instead of waiting for the timeout.
   */
  boolean awaitAtLeast(MemorySegment signals, long offset, int target, String operation) {
    for (int spin = 0; spin < spins; spin++) {
      if (reached(read(signals, offset), target)) {
        return true;
      }
      Thread.onSpinWait();
    }
    long started = System.nanoTime();
    for (int yield = 0; yield < YIELDS; yield++) {
      if (reached(read(signals, offset), target)) {
        return true;
      }
      Thread.yield();
    }
    while (!reached(read(signals, offset), target)) {
      if (System.nanoTime() - started > timeoutNanos) {
        return reached(read(signals, offset), target);
      }
      String abandoned = abandonedBecause();
      // A peer publishes everything it owes before raising its abort flag, so look once more.
      if (abandoned != null && !reached(read(signals, offset), target)) {
        throw new PeerFailedException(
            "%s on rank %d gave up: %s".formatted(operation, rank, abandoned));
      }
      LockSupport.parkNanos(PARK_NANOS);
    }
    return true;
  }

  /** Why waiting is pointless now (a failure here, or a peer that failed or left), or null. */
  private String abandonedBecause() {
    String failure = localFailure;
    if (failure != null) {
      return failure;
    }
    for (int peer = 0; peer < abortFlags.length; peer++) {
      if (peer != rank) {
        int flag = read(ownSignals, abortFlags[peer]);
        if (flag == ABORT_FAILED) {
          return "rank %d failed in a collective of this communicator (its own error says why)"
              .formatted(peer);
        }
        if (flag == ABORT_CLOSED) {
          return "rank %d closed its communicator".formatted(peer);
        }
      }
    }
    return null;
  }
}
