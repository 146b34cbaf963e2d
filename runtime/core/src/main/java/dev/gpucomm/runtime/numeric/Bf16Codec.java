package dev.gpucomm.runtime.numeric;

import dev.gpucomm.api.v1alpha1.DType;
import java.lang.foreign.MemorySegment;

/** bf16 elements; the block methods take the vectorized path of {@link Bf16Blocks}. */
final class Bf16Codec extends TwoByteCodec {
  static final Bf16Codec INSTANCE = new Bf16Codec();

  private Bf16Codec() {
    super(DType.BF16, 0x1p-8, 0x1p-134);
  }

  @Override
  float toFloat(short bits) {
    return Bf16.toFloat(bits);
  }

  @Override
  short fromFloat(float value) {
    return Bf16.fromFloat(value);
  }

  @Override
  public void load(
      MemorySegment source, long sourceIndex, float[] destination, int offset, int length) {
    if (Bf16Blocks.SUPPORTED) {
      Bf16Blocks.load(source, sourceIndex, destination, offset, length);
    } else {
      super.load(source, sourceIndex, destination, offset, length);
    }
  }

  @Override
  public void accumulate(
      MemorySegment source, long sourceIndex, float[] sums, int offset, int length) {
    if (Bf16Blocks.SUPPORTED) {
      Bf16Blocks.accumulate(source, sourceIndex, sums, offset, length);
    } else {
      super.accumulate(source, sourceIndex, sums, offset, length);
    }
  }

  @Override
  public void store(
      float[] values, int offset, MemorySegment destination, long destinationIndex, int length) {
    if (Bf16Blocks.SUPPORTED) {
      Bf16Blocks.store(values, offset, destination, destinationIndex, length);
    } else {
      super.store(values, offset, destination, destinationIndex, length);
    }
  }
}
