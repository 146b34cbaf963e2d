package dev.gpucomm.runtime.numeric;

import dev.gpucomm.api.v1alpha1.DType;

/** bf16 elements. */
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
}
