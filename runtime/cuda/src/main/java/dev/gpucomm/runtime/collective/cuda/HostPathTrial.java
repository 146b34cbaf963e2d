package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * Whether the host path pays on this host, measured by the ranks of a node together when their
 * communicator is built: the same all-reduce with and without it, in alternating rounds.
 *
 * <p>Its gain depends on the host's PCIe links and host memory, and on what else uses them, not on
 * the GPUs: the same call on the same GPU model gained on one host and lost heavily on another,
 * throughout a run of several minutes ({@code bench/results/2026-11-25-2xH100-host-path-trial/}).
 * Every rank publishes its medians in the store and all decide from the slowest rank's, so they
 * agree.
 */
final class HostPathTrial {
  /** The size tried: the smallest call the host path takes by default, or more. */
  static final long PREFERRED_BYTES = 64L << 20;

  static final int WARMUP_CALLS = 20;
  static final int ROUNDS = 7;
  static final int CALLS_PER_ROUND = 10;

  /** One all-reduce of the trial's buffers on the trial's stream. */
  @FunctionalInterface
  interface Call {
    void run(DeviceBuffer input, DeviceBuffer output, Stream stream);
  }

  /** The slowest rank's median time per call, in µs, with and without the host path. */
  record Outcome(long bytes, double withMicros, double withoutMicros) {
    /** Whether calls should take the host path: it was faster on the slowest rank. */
    boolean pays() {
      return withMicros < withoutMicros;
    }

    /** What was measured, for the log and for the reason the path is off. */
    String describe(HostPath.Route route) {
      return String.format(
          Locale.ROOT,
          "%d MiB %s measured %.1f µs with it, %.1f without",
          bytes >> 20,
          route == HostPath.Route.ONE_SHOT ? "one-shot" : "two-shot",
          withMicros,
          withoutMicros);
    }

    /** The outcome every rank reaches from the ranks' own {@link #encode}d medians. */
    static Outcome agreed(long bytes, String[] encodedPerRank) {
      double with = 0;
      double without = 0;
      for (String encoded : encodedPerRank) {
        String[] parts = encoded.trim().split(" ");
        if (parts.length != 2) {
          throw new IllegalStateException("malformed host path trial entry '" + encoded + "'");
        }
        with = Math.max(with, Double.parseDouble(parts[0]));
        without = Math.max(without, Double.parseDouble(parts[1]));
      }
      return new Outcome(bytes, with, without);
    }

    /** One rank's medians as it publishes them. */
    static String encode(double withMicros, double withoutMicros) {
      return withMicros + " " + withoutMicros;
    }
  }

  private HostPathTrial() {}

  /**
   * The size to try: {@link #PREFERRED_BYTES}, raised to the settings' smallest host-path call and
   * capped at the peer buffer (which the caller has checked holds at least that smallest call).
   */
  static long trialBytes(HostPathSettings settings, long peerBufferBytes) {
    long bytes = Math.max(PREFERRED_BYTES, settings.minBytes());
    return Math.min(bytes, peerBufferBytes) / 256 * 256;
  }

  /**
   * Times {@code withHostPath} against {@code withoutHostPath} on this rank, publishes its medians
   * under {@code key} and returns the outcome all {@code world} ranks of the node agree on. Every
   * rank of the node must call this together: both calls are collective.
   */
  static Outcome run(
      CudaDevice device,
      KeyValueStore store,
      String key,
      int localRank,
      int world,
      Duration timeout,
      long bytes,
      Call withHostPath,
      Call withoutHostPath) {
    double[] with = new double[ROUNDS];
    double[] without = new double[ROUNDS];
    try (DeviceBuffer input = device.allocate(bytes);
        DeviceBuffer output = device.allocate(bytes);
        Stream stream = device.createStream();
        Event withStart = device.createEvent();
        Event withEnd = device.createEvent();
        Event withoutStart = device.createEvent();
        Event withoutEnd = device.createEvent()) {
      // 0x3C3C is a small positive bf16 and fp16 value: no NaN or infinity in the sums.
      device.fill(input, 0, bytes, (byte) 0x3C, stream);
      for (int i = 0; i < WARMUP_CALLS; i++) {
        withHostPath.run(input, output, stream);
        withoutHostPath.run(input, output, stream);
      }
      for (int round = 0; round < ROUNDS; round++) {
        // The first call after a switch is untimed: host-path calls timed right after calls
        // without it read slower than back-to-back calls, as a model makes them, run
        // (bench/results/2026-11-25-2xH100-host-path-trial/).
        withHostPath.run(input, output, stream);
        withStart.record(stream);
        for (int i = 0; i < CALLS_PER_ROUND; i++) {
          withHostPath.run(input, output, stream);
        }
        withEnd.record(stream);
        withoutHostPath.run(input, output, stream);
        withoutStart.record(stream);
        for (int i = 0; i < CALLS_PER_ROUND; i++) {
          withoutHostPath.run(input, output, stream);
        }
        withoutEnd.record(stream);
        withoutEnd.synchronize();
        with[round] = 1000.0 * withEnd.elapsedMillisSince(withStart) / CALLS_PER_ROUND;
        without[round] = 1000.0 * withoutEnd.elapsedMillisSince(withoutStart) / CALLS_PER_ROUND;
      }
    }
    store.set(
        key + "/rank-" + localRank,
        Outcome.encode(median(with), median(without)).getBytes(StandardCharsets.UTF_8));
    String[] perRank = new String[world];
    for (int rank = 0; rank < world; rank++) {
      perRank[rank] = new String(store.get(key + "/rank-" + rank, timeout), StandardCharsets.UTF_8);
    }
    return Outcome.agreed(bytes, perRank);
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
