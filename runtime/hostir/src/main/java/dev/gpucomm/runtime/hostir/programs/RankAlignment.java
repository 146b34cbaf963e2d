package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.launch.EnvVars;
import java.util.Map;
import java.util.Set;

/**
 * Lines the ranks up on the device before a timed run: a one-element all-reduce on the run's
 * stream, which completes on every rank at about the same moment. Without it a run starts when its
 * rank's host gets to it, and a rank that starts early spends its head start waiting for the
 * others' data inside the run (a point-to-point ring waits for the peers' sends; a collective waits
 * for all). In a model the collectives around a layer line the ranks up the same way.
 */
final class RankAlignment implements AutoCloseable {
  private final Communicator communicator;
  private final Algorithm algorithm;
  private final DeviceBuffer word;

  private RankAlignment(Communicator communicator, Algorithm algorithm, DeviceBuffer word) {
    this.communicator = communicator;
    this.algorithm = algorithm;
    this.word = word;
  }

  /**
   * Whether runs are lined up: {@code GPUCOMM_PROGRAM_ALIGN} is {@code on} (the default) or {@code
   * off}.
   */
  static boolean wanted(Map<String, String> env) {
    String value = env.getOrDefault(EnvVars.PROGRAM_ALIGN, "on").trim();
    if (!value.equals("on") && !value.equals("off")) {
      throw new IllegalArgumentException(
          EnvVars.PROGRAM_ALIGN + " must be on or off, got '" + value + "'");
    }
    return value.equals("on");
  }

  static RankAlignment of(Device device, Communicator communicator) {
    Set<Algorithm> algorithms = communicator.allReduceAlgorithms();
    Algorithm algorithm =
        algorithms.contains(Algorithm.NCCL) ? Algorithm.NCCL : algorithms.iterator().next();
    DeviceBuffer word = device.allocate(16);
    try {
      device.fill(word, 0, 16, (byte) 0, device.defaultStream());
      device.defaultStream().synchronize();
    } catch (RuntimeException e) {
      word.close();
      throw e;
    }
    return new RankAlignment(communicator, algorithm, word);
  }

  /**
   * Queues the all-reduce on {@code stream}: the work queued after it starts on every rank at once.
   */
  void align(Stream stream) {
    communicator.allReduce(algorithm, word, word, 1, DType.FP32, stream);
  }

  @Override
  public void close() {
    word.close();
  }
}
