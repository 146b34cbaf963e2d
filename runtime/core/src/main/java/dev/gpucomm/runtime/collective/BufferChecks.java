package dev.gpucomm.runtime.collective;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.DeviceBuffer;

/** Argument checks that every communicator backend runs before it launches a collective. */
public final class BufferChecks {

  private BufferChecks() {}

  /**
   * The bytes of {@code multiple} runs of {@code count} elements of {@code dtype}, refusing a null
   * dtype, a negative count and a size that overflows.
   */
  public static long bytes(String operation, long count, DType dtype, int multiple) {
    if (dtype == null) {
      throw new IllegalArgumentException(operation + ": dtype must not be null");
    }
    if (count < 0) {
      throw new IllegalArgumentException(operation + ": count must be >= 0, got " + count);
    }
    try {
      return Math.multiplyExact(Math.multiplyExact(count, (long) dtype.bytes()), (long) multiple);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          operation + ": " + count + " " + dtype + " elements are too many", e);
    }
  }

  /** Refuses a call that needs more than {@code buffer} holds. */
  public static void requireCapacity(
      String operation, String role, DeviceBuffer buffer, long bytes) {
    requireCapacity(operation, role, buffer.byteSize(), bytes);
  }

  /** Refuses a call that needs more than the {@code holds} bytes of the buffer named by role. */
  public static void requireCapacity(String operation, String role, long holds, long bytes) {
    if (bytes < 0 || holds < bytes) {
      throw new IllegalArgumentException(
          "%s: the %s holds %d bytes, the call needs %d".formatted(operation, role, holds, bytes));
    }
  }

  /** Refuses a peer (a root, a send target, a receive source) outside the world. */
  public static void requireRank(String operation, String role, int peer, int worldSize) {
    if (peer < 0 || peer >= worldSize) {
      throw new IllegalArgumentException(
          "%s: %s %d is not a rank of a world of %d".formatted(operation, role, peer, worldSize));
    }
  }
}
