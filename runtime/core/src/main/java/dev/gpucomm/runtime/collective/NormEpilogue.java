package dev.gpucomm.runtime.collective;

import dev.gpucomm.api.v1alpha1.AllReducePattern;
import dev.gpucomm.api.v1alpha1.DType;

/**
 * What a fused all-reduce does to each token row of the sum: adds the residual, writes the updated
 * residual, and writes RMSNorm of it times γ, in the element type or as FP8 e4m3 divided by {@code
 * fp8Scale}.
 *
 * @param pattern a pattern that {@link AllReducePattern#normalizes() normalizes}
 * @param hiddenSize elements per token row
 * @param epsilon added to the mean square before the square root
 * @param fp8Scale the per-tensor scale of the FP8 output (ignored for other patterns)
 * @param fp32Accumulate sum the ranks in fp32, or in the element type rounding after each rank
 */
public record NormEpilogue(
    AllReducePattern pattern,
    int hiddenSize,
    float epsilon,
    float fp8Scale,
    boolean fp32Accumulate) {

  /** The ε of the RMSNorm in Llama-style models, which the benchmark uses. */
  public static final float DEFAULT_EPSILON = 1e-6f;

  public NormEpilogue {
    if (pattern == null || !pattern.normalizes()) {
      throw new IllegalArgumentException("a norm epilogue needs a fused pattern, got " + pattern);
    }
    if (hiddenSize < 1) {
      throw new IllegalArgumentException("hiddenSize must be >= 1, got " + hiddenSize);
    }
    if (!(epsilon >= 0)) {
      throw new IllegalArgumentException("epsilon must be >= 0, got " + epsilon);
    }
    if (pattern.quantizesToFp8() && !(fp8Scale > 0 && Float.isFinite(fp8Scale))) {
      throw new IllegalArgumentException("fp8Scale must be a positive number, got " + fp8Scale);
    }
  }

  /** Bytes of one element of the normalized output. */
  public int outputElementBytes(DType dtype) {
    return pattern.quantizesToFp8() ? 1 : dtype.bytes();
  }
}
