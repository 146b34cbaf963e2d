package dev.gpucomm.runtime.device.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A kernel's parameter block, laid out once in native memory: the values, and the {@code void**}
 * array of pointers to them that cuLaunchKernel takes. Setting a value writes in place, so a launch
 * allocates nothing.
 */
public final class KernelArguments {
  private final MemorySegment values;
  private final MemorySegment pointers;
  private final long[] offsets;
  private final long[] sizes;

  /**
   * @param sizes the byte size of each parameter, in order (8 for pointers and long long, 4 for
   *     int, the struct size for structs passed by value)
   */
  public KernelArguments(Arena arena, long... sizes) {
    this.sizes = sizes.clone();
    this.offsets = new long[sizes.length];
    long offset = 0;
    for (int i = 0; i < sizes.length; i++) {
      long alignment = Math.min(8, Long.highestOneBit(Math.max(1, sizes[i])));
      offset = (offset + alignment - 1) / alignment * alignment;
      offsets[i] = offset;
      offset += sizes[i];
    }
    this.values = arena.allocate(Math.max(8, offset), 16);
    this.pointers = arena.allocate(ADDRESS, Math.max(1, sizes.length));
    for (int i = 0; i < sizes.length; i++) {
      pointers.setAtIndex(ADDRESS, i, values.asSlice(offsets[i], sizes[i]));
    }
  }

  public KernelArguments setLong(int index, long value) {
    check(index, 8);
    values.set(JAVA_LONG, offsets[index], value);
    return this;
  }

  public KernelArguments setInt(int index, int value) {
    check(index, 4);
    values.set(JAVA_INT, offsets[index], value);
    return this;
  }

  /** Sets the {@code element}-th 8-byte word of a struct parameter. */
  public KernelArguments setStructLong(int index, int element, long value) {
    if (element < 0 || 8L * (element + 1) > sizes[index]) {
      throw new IndexOutOfBoundsException("word " + element + " outside parameter " + index);
    }
    values.set(JAVA_LONG, offsets[index] + 8L * element, value);
    return this;
  }

  MemorySegment pointers() {
    return pointers;
  }

  private void check(int index, long size) {
    if (sizes[index] != size) {
      throw new IllegalArgumentException(
          "parameter " + index + " has " + sizes[index] + " bytes, not " + size);
    }
  }
}
