package dev.gpucomm.runtime.collective.cuda.diagnostics;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.cuda.CudaCommunicator;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;

/**
 * One way of running an all-reduce: through the communicator's public algorithm, or forcing one IPC
 * kernel variant (to compare the Lamport and flag one-shot kernels at the same size).
 */
record AllReduceRunner(String label, Algorithm algorithm, String variant) {
  static AllReduceRunner algorithm(Algorithm algorithm) {
    return new AllReduceRunner(algorithm.wireName(), algorithm, null);
  }

  static AllReduceRunner kernel(String variant) {
    return new AllReduceRunner("kernel:" + variant, null, variant);
  }

  AllReduceRunner labelled(String newLabel) {
    return new AllReduceRunner(newLabel, algorithm, variant);
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
      communicator.allReduceWith(variant, input, output, count, dtype, stream);
    }
  }

  boolean isNccl() {
    return algorithm == Algorithm.NCCL;
  }
}
