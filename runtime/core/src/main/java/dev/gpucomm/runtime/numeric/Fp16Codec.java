package dev.gpucomm.runtime.numeric;

import dev.gpucomm.api.v1alpha1.DType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** fp16 elements. */
final class Fp16Codec implements ElementCodec {
  static final Fp16Codec INSTANCE = new Fp16Codec();
  private static final ValueLayout.OfShort LAYOUT = ValueLayout.JAVA_SHORT_UNALIGNED;

  private Fp16Codec() {}

  @Override
  public DType dtype() {
    return DType.FP16;
  }

  @Override
  public double unitRoundoff() {
    return 0x1p-11;
  }

  @Override
  public double underflowError() {
    return 0x1p-25;
  }

  @Override
  public float round(float value) {
    return Fp16.round(value);
  }

  @Override
  public float read(MemorySegment segment, long index) {
    return Fp16.toFloat(segment.get(LAYOUT, index * 2));
  }

  @Override
  public void write(MemorySegment segment, long index, float value) {
    segment.set(LAYOUT, index * 2, Fp16.fromFloat(value));
  }

  @Override
  public void load(
      MemorySegment source, long sourceIndex, float[] destination, int offset, int length) {
    long byteOffset = sourceIndex * 2;
    for (int i = 0; i < length; i++) {
      destination[offset + i] = Fp16.toFloat(source.get(LAYOUT, byteOffset + 2L * i));
    }
  }

  @Override
  public void accumulate(
      MemorySegment source, long sourceIndex, float[] sums, int offset, int length) {
    long byteOffset = sourceIndex * 2;
    for (int i = 0; i < length; i++) {
      sums[offset + i] += Fp16.toFloat(source.get(LAYOUT, byteOffset + 2L * i));
    }
  }

  @Override
  public void store(
      float[] values, int offset, MemorySegment destination, long destinationIndex, int length) {
    long byteOffset = destinationIndex * 2;
    for (int i = 0; i < length; i++) {
      destination.set(LAYOUT, byteOffset + 2L * i, Fp16.fromFloat(values[offset + i]));
    }
  }

  @Override
  public String toString() {
    return "fp16 codec";
  }
}
