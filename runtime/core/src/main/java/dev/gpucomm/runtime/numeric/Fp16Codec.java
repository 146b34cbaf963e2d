package dev.gpucomm.runtime.numeric;

import dev.gpucomm.api.v1alpha1.DType;
import java.lang.foreign.MemorySegment;

/** fp16 elements; the block methods take the vectorized path of {@link Fp16Blocks}. */
final class Fp16Codec extends TwoByteCodec {
  static final Fp16Codec INSTANCE = new Fp16Codec();

  private Fp16Codec() {
    super(DType.FP16, 0x1p-11, 0x1p-25);
  }

  @Override
  float toFloat(short bits) {
    return Fp16.toFloat(bits);
  }

  @Override
  short fromFloat(float value) {
    return Fp16.fromFloat(value);
  }

  @Override
  public void load(
      MemorySegment source, long sourceIndex, float[] destination, int offset, int length) {
    Fp16Blocks.load(source, sourceIndex, destination, offset, length);
  }

  @Override
  public void accumulate(
      MemorySegment source, long sourceIndex, float[] sums, int offset, int length) {
    Fp16Blocks.accumulate(source, sourceIndex, sums, offset, length);
  }

  @Override
  public void store(
      float[] values, int offset, MemorySegment destination, long destinationIndex, int length) {
    Fp16Blocks.store(values, offset, destination, destinationIndex, length);
  }
}
