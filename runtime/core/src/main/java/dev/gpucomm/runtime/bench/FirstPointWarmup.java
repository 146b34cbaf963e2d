package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.DeviceKind;

/**
 * Untimed calls before the first point at which each algorithm is timed, besides the plan's
 * warm-up.
 *
 * <p>On GPUs the eager time of the small sizes, where the host's launch path and not the kernel
 * sets the pace, settles only after thousands of calls, in every run and with the JIT held to its
 * C1 tier as well, so it is not the JIT's last tier that settles ({@code
 * bench/results/2026-11-22-4xH200-reproduction/}). A serving job makes millions of calls, so the
 * sweep times the settled state. The warm-up moves at most {@link #GPU_BYTES} so that a large first
 * point does not run for seconds. The count depends only on the size, so every rank makes the same
 * number of collective calls.
 *
 * <p>The CPU backend has no launch path to settle, but its collectives run as Java code that the
 * JIT compiles while they run: after these calls it warms up until the time per call settles
 * ({@link SteadyStateWarmup}).
 */
final class FirstPointWarmup {
  /** Calls at the small sizes on GPUs. */
  static final int GPU_CALLS = 20_000;

  /** The most bytes per rank the GPU warm-up moves (at 64 MiB: {@link #MIN_CALLS} calls). */
  static final long GPU_BYTES = 16L << 30;

  /** Calls at any size: enough for the JIT to compile the per-call host path. */
  static final int MIN_CALLS = 500;

  /**
   * About the bytes per rank the warm-up of a sweep that only checks results moves (selftest), as
   * long as that is {@link #CHECKING_MIN_CALLS} calls or more: a large first point no longer makes
   * hundreds of calls whose times nobody reads, while small ones still make hundreds.
   */
  static final long CHECKING_BYTES = 64L << 20;

  /**
   * The fewest warm-up calls of a checking sweep, at any size, so that slots and epochs still turn
   * over a few times (above 8 MiB per rank they then move more than {@link #CHECKING_BYTES}).
   */
  static final int CHECKING_MIN_CALLS = 8;

  private FirstPointWarmup() {}

  /** Extra untimed calls before the first timed point of an algorithm, at {@code bytes}. */
  static int calls(DeviceKind device, long bytes) {
    if (device != DeviceKind.CUDA) {
      return MIN_CALLS;
    }
    long byBytes = GPU_BYTES / Math.max(1, bytes);
    return (int) Math.max(MIN_CALLS, Math.min(GPU_CALLS, byBytes));
  }

  /**
   * Extra untimed calls before the first point of an algorithm in a sweep that only checks results:
   * as {@link #calls}, but only as many as move {@link #CHECKING_BYTES} per rank, and never fewer
   * than {@link #CHECKING_MIN_CALLS}. Like {@link #calls}, the count depends only on the size.
   */
  static int checkingCalls(DeviceKind device, long bytes) {
    long byBytes = CHECKING_BYTES / Math.max(1, bytes);
    return (int) Math.min(calls(device, bytes), Math.max(CHECKING_MIN_CALLS, byBytes));
  }
}
