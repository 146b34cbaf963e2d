package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.runtime.collective.NormEpilogue;
import dev.gpucomm.runtime.numeric.ElementCodec;
import dev.gpucomm.runtime.numeric.Fp8E4m3;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The CPU backend's residual-add + RMSNorm of token rows, computed in fp32 as the CUDA kernels
 * compute it: residualOut = round(sum + residual); out = residualOut · (1 / sqrt(mean(residualOut²)
 * + ε)) · γ, rounded to the element type or quantized to FP8 e4m3 after dividing by the scale.
 *
 * <p>The norm is taken over the stored (rounded) residual, so out is the norm of exactly what the
 * next layer reads as its residual. Row arrays grow to the largest hidden size seen and are reused.
 */
final class ResidualRmsNormRows {
  private float[] sums = new float[0];
  private float[] residual = new float[0];
  private float[] gamma = new float[0];

  /** A row-long scratch array for the caller to sum a row into; valid until the next call. */
  float[] sums(int hiddenSize) {
    if (sums.length < hiddenSize) {
      sums = new float[hiddenSize];
      residual = new float[hiddenSize];
      gamma = new float[hiddenSize];
    }
    return sums;
  }

  /**
   * Sums row {@code row} of every staging area in rank order into {@link #sums}: in fp32, or
   * rounding to the element type after each rank when the epilogue does not accumulate in fp32.
   */
  float[] reduceRow(
      SharedWorkspace workspace,
      int worldSize,
      long row,
      NormEpilogue epilogue,
      ElementCodec codec) {
    int hidden = epilogue.hiddenSize();
    float[] rowSums = sums(hidden);
    long first = row * hidden;
    codec.load(workspace.staging(0), first, rowSums, 0, hidden);
    for (int owner = 1; owner < worldSize; owner++) {
      codec.accumulate(workspace.staging(owner), first, rowSums, 0, hidden);
      if (!epilogue.fp32Accumulate()) {
        for (int i = 0; i < hidden; i++) {
          rowSums[i] = codec.round(rowSums[i]);
        }
      }
    }
    return rowSums;
  }

  /**
   * Applies the epilogue to row {@code row} whose sums are in {@link #sums}: reads the residual and
   * γ, writes the updated residual at element {@code residualOutIndex} of {@code residualOut} and
   * the output at element {@code outputIndex} of {@code output}.
   */
  void normalize(
      long row,
      NormEpilogue epilogue,
      ElementCodec codec,
      MemorySegment residualIn,
      MemorySegment gammaIn,
      MemorySegment residualOut,
      long residualOutIndex,
      MemorySegment output,
      long outputIndex) {
    int hidden = epilogue.hiddenSize();
    long first = row * hidden;
    codec.load(residualIn, first, residual, 0, hidden);
    codec.load(gammaIn, 0, gamma, 0, hidden);
    float sumOfSquares = 0f;
    for (int i = 0; i < hidden; i++) {
      float updated = codec.round(sums[i] + residual[i]);
      residual[i] = updated;
      sumOfSquares += updated * updated;
    }
    codec.store(residual, 0, residualOut, residualOutIndex, hidden);
    float inverseRms = 1f / (float) Math.sqrt(sumOfSquares / hidden + epilogue.epsilon());
    if (epilogue.pattern().quantizesToFp8()) {
      float scale = epilogue.fp8Scale();
      for (int i = 0; i < hidden; i++) {
        float value = residual[i] * inverseRms * gamma[i];
        output.set(ValueLayout.JAVA_BYTE, outputIndex + i, Fp8E4m3.fromFloat(value / scale));
      }
    } else {
      for (int i = 0; i < hidden; i++) {
        sums[i] = residual[i] * inverseRms * gamma[i];
      }
      codec.store(sums, 0, output, outputIndex, hidden);
    }
  }
}
