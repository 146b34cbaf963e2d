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
 * rounds each pod's sum to the element type (together at most u·Σ|x|) before NCCL sums the P pods'
 * sums in the element type again, one rounding per hop: P roundings in all, or P − 1 when a pod
 * holds one rank (its in-pod step is a copy). Counting pods, not ranks, keeps the allowance below
 * what a missing or doubled rank errs by (about Σ|x|/n) on large jobs: bf16 at 2 pods × 8 ranks
 * allows 2u = 0.008 against 0.0625, where n − 1 roundings (0.059) would hide it.
 */
public record ResultTolerance(Algorithm algorithm, DType dtype, int worldSize, int ranksPerPod) {

  /** The tolerance for ranks that all share one pod. */
  public ResultTolerance(Algorithm algorithm, DType dtype, int worldSize) {
    this(algorithm, dtype, worldSize, worldSize);
  }

  /** The largest admissible |actual − exact| for one element. */
  public double bound(double exact, double sumOfMagnitudes) {
    double bound = ReductionTolerance.forSum(dtype, worldSize).bound(exact, sumOfMagnitudes);
    double unitRoundoff = ElementCodec.of(dtype).unitRoundoff();
    if (algorithm == Algorithm.NCCL) {
      bound += (worldSize - 1) * unitRoundoff * sumOfMagnitudes;
    } else if (algorithm == Algorithm.HIERARCHICAL) {
      int pods = worldSize / ranksPerPod;
      bound += (ranksPerPod == 1 ? pods - 1 : pods) * unitRoundoff * sumOfMagnitudes;
    }
    return bound;
  }
}
