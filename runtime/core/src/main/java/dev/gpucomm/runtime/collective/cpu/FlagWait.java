package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.runtime.device.cpu.CpuRankBinding;
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
 * then yields, so that ranks that share few cores (ranks as threads in tests, CI machines) leave
 * the CPU to the rank being waited for, and parks for short intervals only once a wait has lasted
 * {@link #YIELD_NANOS}: a park sleeps far longer than it asks for (timer slack, the scheduler's
 * wake-up), which a wait inside a collective call must not add to every call.
 *
 * <p>The same loop waits for other conditions (a TCP link that has a message, a free slot), and
 * while a wait is slow it drives the communicator's {@link Progress}, so that data queued for other
 * pods keeps moving whatever this rank waits for.
 */
final class FlagWait {
  private static final VarHandle FLAG = ValueLayout.JAVA_INT.varHandle();
  private static final int SPINS_WITH_SPARE_CORES = 2_000;
  private static final int SPINS_WHEN_OVERSUBSCRIBED = 20;
  private static final int SPINS_PER_CLOCK_READ = 16;
  private static final long YIELD_NANOS = 5_000_000;
  private static final long PARK_NANOS = 20_000;

  /** Abort flag value of a peer whose collective failed. */
  static final int ABORT_FAILED = 1;

  /** Abort flag value of a peer that closed its communicator. */
  static final int ABORT_CLOSED = 2;

  private final int spins;
  private final long timeoutNanos;
  private final Duration timeout;

  /** Something that holds or not, checked without allocating; may throw when it never will. */
  interface Condition {
    boolean holds();
  }

  /** Moves queued data along while a rank waits; must neither block nor throw. */
  interface Progress {
    void advance();
  }

  private final int localRank;
  private final int firstRankOfPod;
  private final MemorySegment ownSignals;
  private final long[] abortFlags;
  private volatile String localFailure;
  private Progress progress = () -> {};

  /**
   * One writer at a time (see {@link #waitedNanos()}); volatile so that any thread reads it whole.
   */
  private volatile long waitedNanos;

  /**
   * @param localRank the waiting rank's position in its pod, which indexes the signal flags
   * @param firstRankOfPod the global rank of the pod's first rank, to name peers in messages
   * @param layout the signal layout of the pod's ranks
   */
  FlagWait(
      Duration timeout,
      int localRank,
      int firstRankOfPod,
      MemorySegment ownSignals,
      SignalLayout layout) {
    this.timeout = timeout;
    this.timeoutNanos = timeout.toNanos();
    // Spinning only pays when every rank has a core; otherwise it steals the core of the rank
    // being waited for (CI machines, ranks as threads in tests), so yield almost at once.
    this.spins =
        layout.worldSize() < CpuRankBinding.hostProcessors()
            ? SPINS_WITH_SPARE_CORES
            : SPINS_WHEN_OVERSUBSCRIBED;
    this.localRank = localRank;
    this.firstRankOfPod = firstRankOfPod;
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

  /** Drives {@code progress} while waits are slow (set once, before the first collective). */
  void progressWith(Progress progress) {
    this.progress = progress;
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
    return await(null, signals, offset, target, operation);
  }

  /**
   * Like {@link #awaitAtLeast}, for any condition: true once it holds, false when the timeout
   * passes first.
   */
  boolean await(Condition condition, String operation) {
    return await(condition, null, 0, 0, operation);
  }

  /**
   * The time this rank has waited for its peers in total, in nanoseconds: each wait counts from its
   * start to the last look that found the peers not ready. From then to the look that found them
   * ready, the peers may have been ready all along while this rank was not looking (descheduled,
   * throttled by a CPU quota, stopped), so that stretch is this rank's own time, not its peers'.
   * Only the thread that runs the communicator's collectives waits, and they never overlap, so one
   * thread at a time updates it.
   */
  long waitedNanos() {
    return waitedNanos;
  }

  private boolean await(
      Condition condition, MemorySegment signals, long offset, int target, String operation) {
    if (holds(condition, signals, offset, target)) {
      return true; // no clock read when nothing is to be waited for
    }
    long started = System.nanoTime();
    long lastMiss = started;
    try {
      for (int spin = 0; spin < spins; spin++) {
        if (holds(condition, signals, offset, target)) {
          return true;
        }
        if (spin % SPINS_PER_CLOCK_READ == 0) {
          lastMiss = System.nanoTime();
        }
        Thread.onSpinWait();
      }
      long yieldUntil = started + YIELD_NANOS;
      while (lastMiss - yieldUntil < 0) {
        if (holds(condition, signals, offset, target)) {
          return true;
        }
        lastMiss = System.nanoTime();
        progress.advance();
        Thread.yield();
      }
      while (!holds(condition, signals, offset, target)) {
        lastMiss = System.nanoTime();
        if (lastMiss - started > timeoutNanos) {
          return holds(condition, signals, offset, target);
        }
        String abandoned = abandonedBecause();
        // A peer publishes everything it owes before raising its abort flag, so look once more.
        if (abandoned != null && !holds(condition, signals, offset, target)) {
          throw new PeerFailedException(
              "%s on rank %d gave up: %s"
                  .formatted(operation, firstRankOfPod + localRank, abandoned));
        }
        progress.advance();
        LockSupport.parkNanos(PARK_NANOS);
      }
      return true;
    } finally {
      waitedNanos += lastMiss - started;
    }
  }

  private static boolean holds(
      Condition condition, MemorySegment signals, long offset, int target) {
    return condition == null ? reached(read(signals, offset), target) : condition.holds();
  }

  /** Why waiting is pointless now (a failure here, or a peer that failed or left), or null. */
  private String abandonedBecause() {
    String failure = localFailure;
    if (failure != null) {
      return failure;
    }
    for (int peer = 0; peer < abortFlags.length; peer++) {
      if (peer != localRank) {
        int flag = read(ownSignals, abortFlags[peer]);
        if (flag == ABORT_FAILED) {
          return "rank %d failed in a collective of this communicator (its own error says why)"
              .formatted(firstRankOfPod + peer);
        }
        if (flag == ABORT_CLOSED) {
          return "rank %d closed its communicator".formatted(firstRankOfPod + peer);
        }
      }
    }
    return null;
  }
}
