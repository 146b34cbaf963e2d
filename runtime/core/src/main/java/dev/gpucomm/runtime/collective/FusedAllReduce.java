package dev.gpucomm.runtime.collective;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.Stream;
import java.util.Optional;
import java.util.Set;

/**
 * A communicator that runs all-reduce with a residual-add + RMSNorm epilogue: out =
 * RMSNorm(allreduce(input) + residualIn) · γ, residualOut = allreduce(input) + residualIn, per
 * token row of {@link NormEpilogue#hiddenSize()} elements.
 *
 * <p>The peer-memory algorithms fuse the epilogue into their reduction (one-shot normalizes every
 * row after summing it, two-shot normalizes its own rows and gathers out and residual); the others
 * all-reduce and then run the epilogue as one separate step, the unfused baseline. Calls are
 * asynchronous on {@code stream} and allocate nothing, like {@link Communicator}'s.
 */
public interface FusedAllReduce {

  /** The algorithms {@link #allReduceResidualRmsNorm} accepts here (never auto). */
  Set<Algorithm> fusedAllReduceAlgorithms();

  /**
   * Why {@code algorithm} (one of {@link #fusedAllReduceAlgorithms()}) cannot run a call of this
   * shape here, such as a tensor beyond its peer memory; empty when it can. A sweep reports such a
   * point as not measured with this reason instead of failing.
   */
  default Optional<String> fusedRefusal(
      Algorithm algorithm, long tokens, DType dtype, NormEpilogue epilogue) {
    return Optional.empty();
  }

  void allReduceResidualRmsNorm(
      Algorithm algorithm,
      FusedBuffers buffers,
      long tokens,
      DType dtype,
      NormEpilogue epilogue,
      Stream stream);
}
