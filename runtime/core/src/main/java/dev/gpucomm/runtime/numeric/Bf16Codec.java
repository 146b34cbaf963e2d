package dev.gpucomm.runtime.numeric;

import dev.gpucomm.api.v1alpha1.DType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** bf16 elements. */
final class Bf16Codec implements ElementCodec {
  static final Bf16Codec INSTANCE = new Bf16Codec();
  private static final ValueLayout.OfShort LAYOUT = ValueLayout.JAVA_SHORT_UNALIGNED;

  private Bf16Codec() {}

  @Override
  public DType dtype() {
    return DType.BF16;
  }

  @Override
  public double unitRoundoff() {
    return 0x1p-8;
  }

  @Override
  public double underflowError() {
    return 0x1p-134;
  }

  @Override
  public float round(float value) {
    return Bf16.round(value);
  }

  @Override
  public float read(MemorySegment segment, long index) {
    return Bf16.toFloat(segment.get(LAYOUT, index * 2));
  }

  @Override
  public void write(MemorySegment segment, long index, float value) {
    segment.set(LAYOUT, index * 2, Bf16.fromFloat(value));
  }

  @Override
  public void load(
      MemorySegment source, long sourceIndex, float[] destination, int offset, int length) {
    long byteOffset = sourceIndex * 2;
    for (int i = 0; i < length; i++) {
      destination[offset + i] = Bf16.toFloat(source.get(LAYOUT, byteOffset + 2L * i));
    }
  }

  @Override
  public void accumulate(
      MemorySegment source, long sourceIndex, float[] sums, int offset, int length) {
    long byteOffset = sourceIndex * 2;
    for (int i = 0; i < length; i++) {
      sums[offset + i] += Bf16.toFloat(source.get(LAYOUT, byteOffset + 2L * i));
    }
  }

  @Override
  public void store(
      float[] values, int offset, MemorySegment destination, long destinationIndex, int length) {
    long byteOffset = destinationIndex * 2;
    for (int i = 0; i < length; i++) {
      destination.set(LAYOUT, byteOffset + 2L * i, Bf16.fromFloat(values[offset + i]));
    }
  }

  @Override
  public String toString() {
    return "bf16 codec";
  }
}
