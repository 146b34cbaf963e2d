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
  private static final int SPINS = 2_000;
  private static final int YIELDS = 200;
  private static final long PARK_NANOS = 20_000;

  private final long timeoutNanos;
  private final Duration timeout;

  FlagWait(Duration timeout) {
    this.timeout = timeout;
    this.timeoutNanos = timeout.toNanos();
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

  /** Polls until the flag reaches {@code target}; false when the timeout passes first. */
  boolean awaitAtLeast(MemorySegment signals, long offset, int target) {
    for (int spin = 0; spin < SPINS; spin++) {
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
      LockSupport.parkNanos(PARK_NANOS);
    }
    return true;
  }
}
