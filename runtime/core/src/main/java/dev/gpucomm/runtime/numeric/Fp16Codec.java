package dev.gpucomm.runtime.numeric;

import dev.gpucomm.api.v1alpha1.DType;

/** fp16 elements. */
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
}
