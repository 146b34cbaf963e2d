package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.launch.EnvVars;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import dev.gpucomm.runtime.rendezvous.RankZeroChoice;
import java.time.Duration;
import java.util.Arrays;
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

  /**
   * Whether runs are lined up, as rank 0's {@code env} says ({@link #wanted}), shared through the
   * store under {@code key}: a rank that lined its runs up alone would run an all-reduce its peers
   * never join. Pods given their environment from a ConfigMap edited while they start could
   * otherwise disagree.
   */
  static boolean wantedOnEveryRank(
      Map<String, String> env, KeyValueStore store, String key, int rank, Duration timeout) {
    boolean wanted = wanted(env); // a value that is neither on nor off is refused on any rank
    return RankZeroChoice.agree(store, key, rank, timeout, () -> wanted ? "on" : "off")
        .equals("on");
  }

  static RankAlignment of(Device device, Communicator communicator) {
    Algorithm algorithm = algorithmFor(communicator.allReduceAlgorithms());
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
   * The all-reduce that lines the ranks up, the same on every rank (ranks running two algorithms
   * would each wait for the other's data): NCCL where it runs, else the first of the others in
   * their declared order, whatever order {@code available} iterates in.
   */
  static Algorithm algorithmFor(Set<Algorithm> available) {
    if (available.contains(Algorithm.NCCL)) {
      return Algorithm.NCCL;
    }
    return Arrays.stream(Algorithm.values())
        .filter(available::contains)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("the communicator runs no all-reduce"));
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
