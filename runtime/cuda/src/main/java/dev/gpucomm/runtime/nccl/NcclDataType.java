package dev.gpucomm.runtime.nccl;

import dev.gpucomm.api.v1alpha1.DType;

/** NCCL's ncclDataType_t codes for the element types gpucomm moves. */
public final class NcclDataType {
  public static final int INT8 = 0;
  public static final int FLOAT16 = 6;
  public static final int FLOAT32 = 7;
  public static final int BFLOAT16 = 9;

  /** ncclRedOp_t ncclSum. */
  public static final int SUM = 0;

  private NcclDataType() {}

  public static int of(DType dtype) {
    return switch (dtype) {
      case BF16 -> BFLOAT16;
      case FP16 -> FLOAT16;
      case FP32 -> FLOAT32;
    };
  }
}
