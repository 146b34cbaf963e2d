package dev.gpucomm.runtime.collective.cuda.diagnostics;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.cuda.CudaCommunicator;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;

/**
 * One way of running an all-reduce: through the communicator's public algorithm, or forcing one IPC
 * kernel variant with a block limit (to compare Lamport and flag one-shot, or tune blocks).
 */
record AllReduceRunner(String label, Algorithm algorithm, String variant, int maxBlocks) {
  static AllReduceRunner algorithm(Algorithm algorithm) {
    return new AllReduceRunner(algorithm.wireName(), algorithm, null, 0);
  }

  static AllReduceRunner kernel(String variant, int maxBlocks) {
    return new AllReduceRunner(variant + "/" + maxBlocks, null, variant, maxBlocks);
  }

  void run(
      CudaCommunicator communicator,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream) {
    if (algorithm != null) {
      communicator.allReduce(algorithm, input, output, count, dtype, stream);
    } else {
      communicator.allReduceWith(variant, input, output, count, dtype, maxBlocks, stream);
    }
  }

  boolean isNccl() {
    return algorithm == Algorithm.NCCL;
  }
}
