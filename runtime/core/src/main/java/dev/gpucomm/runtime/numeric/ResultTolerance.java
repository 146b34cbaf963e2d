package dev.gpucomm.runtime.numeric;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;

/**
 * How far a reduced element may be from the float64 sum of the same (exactly representable) inputs.
 *
 * <p>Per element, not per tensor: with x the ranks' inputs at one index, our kernels accumulate in
 * fp32 and round once to the element type, which {@link ReductionTolerance#forSum} bounds by u·|Σx|
 * + γ(n−1)·Σ|x| (u = 2⁻⁸ for bf16, 2⁻¹¹ for fp16, 2⁻²⁴ for fp32; about 4e-3, 5e-4 and 6e-8 relative
 * to Σ|x|). That is tighter than a fixed "bf16 ~1e-2 of the norm" rule and still never rejects a
 * correct kernel; a missing or doubled rank errs by about |x|/Σ|x| ≈ 1/n, far above it.
 *
 * <p>NCCL's ring sums in the element type between hops (each of the n−1 hops rounds a partial sum
 * to bf16/fp16), so for {@code nccl} each hop adds up to u·Σ|x|. Hierarchical all-reduce on GPUs
 * rounds each pod's sum to the element type before NCCL sums the P pods' sums in the element type
 * again: at most 1 + (P−1) roundings of partial sums, never more than the n−1 of a flat ring (P ≤
 * n/2 when pods hold two or more ranks; with one rank per pod the in-pod step is a copy and P − 1 =
 * n − 1), so it gets the same allowance. A missing or doubled rank still errs by about 1/n of Σ|x|,
 * several times the allowance (bf16, n = 8: 0.125 against 0.027).
 */
public record ResultTolerance(Algorithm algorithm, DType dtype, int worldSize) {

  /** The largest admissible |actual − exact| for one element. */
  public double bound(double exact, double sumOfMagnitudes) {
    double bound = ReductionTolerance.forSum(dtype, worldSize).bound(exact, sumOfMagnitudes);
    if (algorithm == Algorithm.NCCL || algorithm == Algorithm.HIERARCHICAL) {
      bound += (worldSize - 1) * ElementCodec.of(dtype).unitRoundoff() * sumOfMagnitudes;
    }
    return bound;
  }
}
