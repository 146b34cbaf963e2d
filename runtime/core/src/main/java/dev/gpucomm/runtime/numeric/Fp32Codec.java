package dev.gpucomm.runtime.numeric;

import dev.gpucomm.api.v1alpha1.DType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** fp32 elements; also the format of reduction partials, which stay in fp32 between ranks. */
final class Fp32Codec implements ElementCodec {
  static final Fp32Codec INSTANCE = new Fp32Codec();
  private static final ValueLayout.OfFloat LAYOUT = ValueLayout.JAVA_FLOAT_UNALIGNED;

  private Fp32Codec() {}

  @Override
  public DType dtype() {
    return DType.FP32;
  }

  @Override
  public double unitRoundoff() {
    return 0x1p-24;
  }

  @Override
  public double underflowError() {
    return 0x1p-150;
  }

  @Override
  public float round(float value) {
    return value;
  }

  @Override
  public float read(MemorySegment segment, long index) {
    return segment.get(LAYOUT, index * 4);
  }

  @Override
  public void write(MemorySegment segment, long index, float value) {
    segment.set(LAYOUT, index * 4, value);
  }

  @Override
  public void load(
      MemorySegment source, long sourceIndex, float[] destination, int offset, int length) {
    MemorySegment.copy(source, LAYOUT, sourceIndex * 4, destination, offset, length);
  }

  @Override
  public void accumulate(
      MemorySegment source, long sourceIndex, float[] sums, int offset, int length) {
    long byteOffset = sourceIndex * 4;
    for (int i = 0; i < length; i++) {
      sums[offset + i] += source.get(LAYOUT, byteOffset + 4L * i);
    }
  }

  @Override
  public void store(
      float[] values, int offset, MemorySegment destination, long destinationIndex, int length) {
    MemorySegment.copy(values, offset, destination, LAYOUT, destinationIndex * 4, length);
  }

  @Override
  public String toString() {
    return "fp32 codec";
  }
}
