package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import java.util.ArrayList;
import java.util.List;

/**
 * The sizes that nccl-tests' sweep flags ({@code -b}, {@code -e}, {@code -f}, {@code -i}) walk, and
 * the message per rank that each becomes here, so that a sweep given in nccl-tests' terms measures
 * the same buffers as nccl-tests would.
 *
 * <p>nccl-tests starts at {@code minBytes} and multiplies by {@code stepFactor} when it is above 1,
 * else adds {@code stepBytes}, while the size is at most {@code maxBytes}. It turns each size into
 * an element count of the data type (rounding down), and for all-gather and reduce-scatter into a
 * count per rank (rounding down again); the size it prints is the larger of the send and receive
 * buffers, which is {@link CollectiveShape#algorithmBytes()} of the message per rank.
 *
 * @param minBytes first size ({@code -b})
 * @param maxBytes last size at most ({@code -e})
 * @param stepFactor factor between sizes ({@code -f}); 1 means steps of {@code stepBytes}
 * @param stepBytes increment between sizes ({@code -i}) when {@code stepFactor} is 1
 */
public record NcclTestsSizes(long minBytes, long maxBytes, long stepFactor, long stepBytes) {
  /** nccl-tests' defaults: one size of 32 MiB, steps of 1 MiB. */
  public static final long DEFAULT_MIN_BYTES = 32L << 20;

  public static final long DEFAULT_MAX_BYTES = 32L << 20;
  public static final long DEFAULT_STEP_FACTOR = 1;
  public static final long DEFAULT_STEP_BYTES = 1L << 20;

  /**
   * @throws IllegalArgumentException naming the nccl-tests flag whose value cannot make a sweep
   */
  public NcclTestsSizes {
    if (minBytes < 0) {
      throw new IllegalArgumentException("-b: must be >= 0, got " + minBytes);
    }
    if (maxBytes < minBytes) {
      throw new IllegalArgumentException(
          "-e: %d is below the minimum size %d (-b)".formatted(maxBytes, minBytes));
    }
    if (stepFactor < 1) {
      throw new IllegalArgumentException("-f: must be >= 1, got " + stepFactor);
    }
    if (stepFactor == 1 && stepBytes < 0) {
      throw new IllegalArgumentException("-i: must be >= 0, got " + stepBytes);
    }
    if (stepFactor == 1 && stepBytes < 1 && maxBytes > minBytes) {
      throw new IllegalArgumentException(
          "-i: must be >= 1 when -f is 1 and -e is above -b, got " + stepBytes);
    }
    if (stepFactor > 1 && minBytes == 0 && maxBytes > 0) {
      throw new IllegalArgumentException("-b: 0 never grows by a factor (-f); start at 1 or more");
    }
  }

  /** The sizes in nccl-tests' order, as it prints them before rounding to elements. */
  public List<Long> sizes() {
    return sizes(Integer.MAX_VALUE - 1);
  }

  /**
   * The first {@code atMost + 1} sizes at most: a caller that refuses sweeps of more than {@code
   * atMost} sizes learns so without walking (and holding) all of them, which for {@code -b 16 -e 8G
   * -i 16} would be half a billion.
   */
  public List<Long> sizes(int atMost) {
    List<Long> sizes = new ArrayList<>();
    long size = minBytes;
    while (size <= maxBytes && sizes.size() <= atMost) {
      sizes.add(size);
      long next;
      try {
        next =
            stepFactor > 1 ? Math.multiplyExact(size, stepFactor) : Math.addExact(size, stepBytes);
      } catch (ArithmeticException e) {
        break;
      }
      if (next <= size) {
        break; // a single size (-b equal to -e with no step)
      }
      size = next;
    }
    return sizes;
  }

  /** The element count nccl-tests passes to the collective for a size of {@code size} bytes. */
  public static long count(long size, Collective collective, DType dtype, int worldSize) {
    long count = size / dtype.bytes();
    return switch (collective) {
      case ALLREDUCE, BROADCAST -> count;
      case ALLGATHER, REDUCESCATTER, COLLECTIVEPERMUTE -> count / worldSize;
    };
  }

  /** The message per rank that a size of {@code size} bytes is here (see the class comment). */
  public static long bytesPerRank(long size, Collective collective, DType dtype, int worldSize) {
    return count(size, collective, dtype, worldSize) * dtype.bytes();
  }
}
