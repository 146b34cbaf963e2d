package dev.gpucomm.runtime.collective.cuda.lab;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Graph;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Times all-reduce on this host: the host cost of one eager call, and each runner eager and from
 * CUDA graphs (CUDA events, medians), every result checked against the bf16 reference.
 */
final class AllReduceTiming {
  private static final int[] TOKENS = {32, 64, 128, 256, 512, 1024, 2048, 4096};

  private final DiagnosticsSession session;
  private final Map<Long, RankInputs> references = new HashMap<>();

  AllReduceTiming(DiagnosticsSession session) {
    this.session = session;
  }

  /** Host time spent inside one eager all-reduce call (the launch path), median of 500. */
  void measureHostCost() {
    List<AllReduceRunner> runners = session.customRunnersAndNccl();
    long count = 512;
    try (DeviceBuffer input = session.device.allocate(count * 2);
        DeviceBuffer output = session.device.allocate(count * 2)) {
      session.device.fill(input, 0, count * 2, (byte) 1, session.stream);
      for (AllReduceRunner runner : runners) {
        long[] nanos = new long[500];
        for (int round = 0; round < 3; round++) {
          session.barrier();
          session.stream.synchronize();
          for (int i = 0; i < nanos.length; i++) {
            long start = System.nanoTime();
            session.allReduce(runner, input, output, count, DType.BF16);
            nanos[i] = System.nanoTime() - start;
          }
          session.stream.synchronize();
        }
        Arrays.sort(nanos);
        if (session.isRankZero()) {
          session.out.printf(
              Locale.ROOT,
              "host cost of one eager call, %s: median %.2f us, p90 %.2f us%n",
              runner.label(),
              nanos[nanos.length / 2] / 1e3,
              nanos[nanos.length * 9 / 10] / 1e3);
        }
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("kind", "host-cost");
        row.put("world", session.topology.worldSize());
        row.put("runner", runner.label());
        row.put("medianMicros", nanos[nanos.length / 2] / 1e3);
        session.addRow(row);
      }
    }
  }

  /** Every runner at every size of the sweep, eager and graph-replayed. */
  void bench(int samples) {
    bench(samples, List.of(), TOKENS);
  }

  /**
   * The sweep restricted to runners whose labels are in {@code only} (all when empty) and to {@code
   * tokenCounts}.
   */
  void bench(int samples, List<String> only, int[] tokenCounts) {
    List<AllReduceRunner> runners = new ArrayList<>();
    if (session.communicator.allReduceAlgorithms().contains(Algorithm.NCCL)) {
      runners.add(AllReduceRunner.algorithm(Algorithm.NCCL));
      runners.add(AllReduceRunner.ncclInPlace());
    }
    runners.addAll(session.customRunners());
    if (session.communicator.allReduceAlgorithms().contains(Algorithm.ONESHOT)) {
      runners.add(AllReduceRunner.algorithm(Algorithm.ONESHOT));
      runners.add(AllReduceRunner.algorithm(Algorithm.TWOSHOT));
    }
    if (session.isRankZero()) {
      session.out.println(
          "bench: bf16, hidden "
              + DiagnosticsSession.HIDDEN
              + ", world "
              + session.topology.worldSize()
              + ", median of "
              + samples
              + " samples of 10 calls (us per call)");
      session.out.println(
          "tokens      bytes  runner           eager     graph   busbw(GB/s)  maxRelErr");
    }
    for (int tokens : tokenCounts) {
      long count = (long) tokens * DiagnosticsSession.HIDDEN;
      for (AllReduceRunner runner : runners) {
        if (session.fits(runner, count * 2) && (only.isEmpty() || only.contains(runner.label()))) {
          time(runner, tokens, count, DType.BF16, samples);
        }
      }
    }
  }

  /**
   * Times one runner at one size: eager calls, then a captured graph of the same calls, each the
   * median of {@code samples} samples of 10 calls; checks the last result and adds a row. An
   * in-place runner's result is checked after its first call instead: every later call sums the
   * previous sums, so its timed calls run on values that grow until they overflow (as PyTorch's
   * repeated in-place calls do; bf16 arithmetic takes the same time on any value).
   */
  void time(AllReduceRunner runner, int tokens, long count, DType dtype, int samples) {
    int perSample = 10;
    long bytes = count * dtype.bytes();
    try (Arena arena = Arena.ofConfined();
        DeviceBuffer input = session.device.allocate(bytes);
        DeviceBuffer separateOutput = session.device.allocate(runner.inPlace() ? 16 : bytes)) {
      DeviceBuffer output = runner.inPlace() ? input : separateOutput;
      MemorySegment host = RankInputs.allocateHost(arena, count, dtype);
      RankInputs.fill(host, session.topology.rank(), count, dtype);
      session.device.upload(host, input, 0);
      RankInputs.Verdict verdict = null;
      if (runner.inPlace()) {
        session.barrier();
        session.allReduce(runner, input, output, count, dtype);
        verdict = validate(runner, output, count, dtype, arena);
      }
      Event[] events = new Event[samples + 1];
      for (int i = 0; i < events.length; i++) {
        events[i] = session.device.createEvent();
      }
      session.barrier();
      for (int i = 0; i < 20; i++) {
        session.allReduce(runner, input, output, count, dtype);
      }
      session.stream.synchronize();
      session.barrier();
      events[0].record(session.stream);
      for (int s = 0; s < samples; s++) {
        for (int i = 0; i < perSample; i++) {
          session.allReduce(runner, input, output, count, dtype);
        }
        events[s + 1].record(session.stream);
      }
      events[samples].synchronize();
      double eager = median(events, perSample);

      session.barrier();
      Graph graph =
          session.device.capture(
              session.stream,
              () -> {
                for (int i = 0; i < perSample; i++) {
                  session.allReduce(runner, input, output, count, dtype);
                }
              });
      for (int i = 0; i < 3; i++) {
        graph.replay(session.stream);
      }
      session.stream.synchronize();
      session.barrier();
      events[0].record(session.stream);
      for (int s = 0; s < samples; s++) {
        graph.replay(session.stream);
        events[s + 1].record(session.stream);
      }
      events[samples].synchronize();
      double graphed = median(events, perSample);
      graph.close();
      for (Event event : events) {
        event.close();
      }

      if (!runner.inPlace()) {
        verdict = validate(runner, output, count, dtype, arena);
      }
      if (!verdict.passed()) {
        session.fail("bench " + runner.label() + " x " + count + ": " + verdict.failure());
      }
      int world = session.topology.worldSize();
      double best = Math.min(eager, graphed);
      double busBandwidth = bytes / (best * 1e-6) / 1e9 * 2.0 * (world - 1) / world;
      if (session.isRankZero()) {
        session.out.printf(
            Locale.ROOT,
            "%6d %10d  %-14s %8.2f  %8.2f  %10.1f   %.2e%n",
            tokens,
            bytes,
            runner.label(),
            eager,
            graphed,
            busBandwidth,
            verdict.maxRelativeError());
      }
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("kind", "allreduce");
      row.put("world", world);
      row.put("tokens", tokens);
      row.put("bytes", bytes);
      row.put("runner", runner.label());
      row.put("eagerMicros", eager);
      row.put("graphMicros", graphed);
      row.put("busBandwidthGBps", busBandwidth);
      row.put("maxRelativeError", verdict.maxRelativeError());
      row.put("samples", samples);
      row.put("callsPerSample", perSample);
      session.addRow(row);
    }
  }

  private RankInputs.Verdict validate(
      AllReduceRunner runner, DeviceBuffer output, long count, DType dtype, Arena arena) {
    MemorySegment result = RankInputs.allocateHost(arena, count, dtype);
    session.device.download(output, 0, result, session.stream);
    return benchReference(dtype, count).validate(result, runner.algorithm());
  }

  /** The bench's bf16 reference for one size, computed once. */
  private RankInputs benchReference(DType dtype, long count) {
    return references.computeIfAbsent(
        count, c -> RankInputs.reference(dtype, c, session.topology.worldSize()));
  }

  private static double median(Event[] events, int callsPerSample) {
    double[] micros = new double[events.length - 1];
    for (int i = 0; i < micros.length; i++) {
      micros[i] = events[i + 1].elapsedMillisSince(events[i]) * 1000.0 / callsPerSample;
    }
    Arrays.sort(micros);
    return micros.length % 2 == 1
        ? micros[micros.length / 2]
        : (micros[micros.length / 2 - 1] + micros[micros.length / 2]) / 2;
  }
}
