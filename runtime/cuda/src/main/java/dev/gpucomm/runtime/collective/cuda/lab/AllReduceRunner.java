package dev.gpucomm.runtime.collective.cuda.lab;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;

/**
 * One way of running an all-reduce: through the communicator's public algorithm, or forcing one IPC
 * kernel variant through its IPC all-reduce (to compare the Lamport and flag one-shot kernels at
 * the same size). An in-place runner passes its input buffer as the output too, as {@code
 * torch.distributed.all_reduce} does.
 */
record AllReduceRunner(String label, Algorithm algorithm, String variant, boolean inPlace) {
  static AllReduceRunner algorithm(Algorithm algorithm) {
    return new AllReduceRunner(algorithm.wireName(), algorithm, null, false);
  }

  static AllReduceRunner kernel(String variant) {
    return new AllReduceRunner("kernel:" + variant, null, variant, false);
  }

  /** NCCL with the output in the input's buffer: the form PyTorch's NCCL comparison times. */
  static AllReduceRunner ncclInPlace() {
    return new AllReduceRunner("nccl-inplace", Algorithm.NCCL, null, true);
  }

  AllReduceRunner labelled(String newLabel) {
    return new AllReduceRunner(newLabel, algorithm, variant, inPlace);
  }

  void run(
      DiagnosticsSession session,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream) {
    if (algorithm != null) {
      session.communicator.allReduce(algorithm, input, output, count, dtype, stream);
    } else {
      session.ipcAllReduce().allReduceWith(variant, input, output, count, dtype, stream);
    }
  }

  boolean isNccl() {
    return algorithm == Algorithm.NCCL;
  }
}
