package dev.gpucomm.runtime.numeric;

import dev.gpucomm.api.v1alpha1.DType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Elements stored in two bytes and computed on as fp32: the memory access and the block loops are
 * the same for every such type, only the conversion of the bits differs.
 */
abstract sealed class TwoByteCodec implements ElementCodec permits Bf16Codec, Fp16Codec {
  private static final ValueLayout.OfShort LAYOUT = ValueLayout.JAVA_SHORT_UNALIGNED;

  private final DType dtype;
  private final double unitRoundoff;
  private final double underflowError;

  TwoByteCodec(DType dtype, double unitRoundoff, double underflowError) {
    this.dtype = dtype;
    this.unitRoundoff = unitRoundoff;
    this.underflowError = underflowError;
  }

  /** The exact fp32 value of the element's bits. */
  abstract float toFloat(short bits);

  /** The element bits nearest to {@code value}, ties to even. */
  abstract short fromFloat(float value);

  @Override
  public final DType dtype() {
    return dtype;
  }

  @Override
  public final double unitRoundoff() {
    return unitRoundoff;
  }

  @Override
  public final double underflowError() {
    return underflowError;
  }

  @Override
  public final float round(float value) {
    return toFloat(fromFloat(value));
  }

  @Override
  public final float read(MemorySegment segment, long index) {
    return toFloat(segment.get(LAYOUT, index * 2));
  }

  @Override
  public final void write(MemorySegment segment, long index, float value) {
    segment.set(LAYOUT, index * 2, fromFloat(value));
  }

  @Override
  public void load(
      MemorySegment source, long sourceIndex, float[] destination, int offset, int length) {
    long byteOffset = sourceIndex * 2;
    for (int i = 0; i < length; i++) {
      destination[offset + i] = toFloat(source.get(LAYOUT, byteOffset + 2L * i));
    }
  }

  @Override
  public void accumulate(
      MemorySegment source, long sourceIndex, float[] sums, int offset, int length) {
    long byteOffset = sourceIndex * 2;
    for (int i = 0; i < length; i++) {
      sums[offset + i] += toFloat(source.get(LAYOUT, byteOffset + 2L * i));
    }
  }

  @Override
  public void store(
      float[] values, int offset, MemorySegment destination, long destinationIndex, int length) {
    long byteOffset = destinationIndex * 2;
    for (int i = 0; i < length; i++) {
      destination.set(LAYOUT, byteOffset + 2L * i, fromFloat(values[offset + i]));
    }
  }

  @Override
  public final String toString() {
    return dtype.wireName() + " codec";
  }
}
