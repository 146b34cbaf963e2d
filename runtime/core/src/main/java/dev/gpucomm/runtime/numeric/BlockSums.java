package dev.gpucomm.runtime.numeric;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The fp32 sums of one block of a reduction, up to {@link #CAPACITY} elements, in the block order
 * of the codec that fills them (see {@link ElementCodec#loadBlock}).
 *
 * <p>A reduction owns one and reuses it for every block; the sums are also reachable as a memory
 * segment, made once, so that codecs can read their bits in loops and callers can move partial sums
 * between ranks without converting or allocating.
 */
public final class BlockSums {
  /** The most elements of one block. */
  public static final int CAPACITY = 4096;

  private static final ValueLayout.OfFloat RAW = ValueLayout.JAVA_FLOAT_UNALIGNED;

  final float[] values = new float[CAPACITY];
  final MemorySegment segment = MemorySegment.ofArray(values);

  /** Copies the first {@code length} sums, raw, into {@code destination} at {@code byteOffset}. */
  public void copyTo(MemorySegment destination, long byteOffset, int length) {
    MemorySegment.copy(values, 0, destination, RAW, byteOffset, length);
  }

  /** Sets the first {@code length} sums to the raw fp32 values at {@code byteOffset}. */
  public void copyFrom(MemorySegment source, long byteOffset, int length) {
    MemorySegment.copy(source, RAW, byteOffset, values, 0, length);
  }

  /** The sum at {@code position} in block order. */
  public float get(int position) {
    return values[position];
  }
}
