package dev.gpucomm.runtime.collective.cuda.lab;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Graph;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks the all-reduce algorithms and kernel variants against a float64 reference: each alone at
 * many sizes (and the kernels bit-identical to each other), many calls back to back with sizes and
 * kernels changing, and CUDA-graph replays mixed with eager calls.
 */
final class AllReduceChecks {
  private final DiagnosticsSession session;

  AllReduceChecks(DiagnosticsSession session) {
    this.session = session;
  }

  void run() {
    everyAlgorithmAtManySizes();
    backToBack();
    graphReplay();
    oneShotHostKernelRefusedBeyondTwoRanks();
  }

  /**
   * Where the host path is on with more than two ranks, forcing the one-shot's host kernel (which
   * reduces one peer's share) is refused on every rank before anything is enqueued.
   */
  private void oneShotHostKernelRefusedBeyondTwoRanks() {
    int world = session.topology.localWorldSize();
    if (world == 2
        || !session.hasIpcAllReduce()
        || session.ipcAllReduce().hostPathKernels().isEmpty()) {
      return;
    }
    long count = 4096;
    long bytes = count * DType.BF16.bytes();
    try (DeviceBuffer input = session.device.allocate(bytes);
        DeviceBuffer output = session.device.allocate(bytes)) {
      session
          .ipcAllReduce()
          .allReduceWith("oneshot_wsh", input, output, count, DType.BF16, session.stream);
      session.fail("oneshot_wsh on " + world + " ranks: ran instead of being refused");
    } catch (IllegalArgumentException refused) {
      if (!refused.getMessage().contains("joins two ranks")) {
        session.fail("oneshot_wsh on " + world + " ranks: refused for " + refused.getMessage());
      }
    }
    session.stream.synchronize();
    session.report("oneshot_wsh refused on " + world + " ranks");
  }

  /** Every algorithm and kernel at odd and even sizes in every dtype, against float64. */
  private void everyAlgorithmAtManySizes() {
    long[] counts = {8, 24, 1001, 4104, 65536, 262_152, 1_048_576, 4_194_304 + 8, 8_388_608};
    for (DType dtype : DType.values()) {
      for (long count : counts) {
        long bytes = count * dtype.bytes();
        RankInputs reference = RankInputs.reference(dtype, count, session.topology.worldSize());
        try (Arena arena = Arena.ofConfined();
            DeviceBuffer input = session.device.allocate(bytes);
            DeviceBuffer output = session.device.allocate(bytes)) {
          MemorySegment host = RankInputs.allocateHost(arena, count, dtype);
          RankInputs.fill(host, session.topology.rank(), count, dtype);
          session.device.upload(host, input, 0);
          MemorySegment result = RankInputs.allocateHost(arena, count, dtype);
          MemorySegment firstCustom = null;
          List<AllReduceRunner> runners = session.customRunnersAndNccl();
          for (AllReduceRunner runner : runners) {
            if (!session.fits(runner, bytes)) {
              continue;
            }
            session.barrier();
            session.device.fill(output, 0, bytes, (byte) 0x7f, session.stream);
            session.allReduce(runner, input, output, count, dtype);
            session.device.download(output, 0, result, session.stream);
            String what = "allreduce " + runner.label() + " " + dtype + " x " + count;
            RankInputs.Verdict verdict = reference.validate(result, runner.algorithm());
            if (!verdict.passed()) {
              session.fail(what + ": " + verdict.failure());
            } else if (runner.variant() != null) {
              if (firstCustom == null) {
                firstCustom = arena.allocate(bytes, 16);
                firstCustom.copyFrom(result);
              } else if (firstCustom.mismatch(result) >= 0) {
                session.fail(
                    what + ": not bit-identical to " + session.customRunners().get(0).label());
              }
            }
          }
        }
      }
      session.report(
          "allreduce " + dtype + ": every algorithm and kernel at " + counts.length + " sizes");
    }
  }

  /** Many calls in a row, sizes and kernels changing, no synchronization in between. */
  private void backToBack() {
    List<AllReduceRunner> runners = session.customRunners();
    if (runners.isEmpty()) {
      return;
    }
    DType dtype = DType.BF16;
    long[] counts = {4104, 262_144, 1_048_576 + 8, 2_000_000};
    List<long[]> plan = new ArrayList<>();
    for (int i = 0; i < counts.length; i++) {
      for (int r = 0; r < runners.size(); r++) {
        if (session.fits(runners.get(r), counts[i] * 2)) {
          plan.add(new long[] {i, r});
        }
      }
    }
    try (Arena arena = Arena.ofConfined()) {
      DeviceBuffer[] inputs = new DeviceBuffer[counts.length];
      DeviceBuffer[] outputs = new DeviceBuffer[plan.size()];
      for (int i = 0; i < counts.length; i++) {
        MemorySegment host = RankInputs.allocateHost(arena, counts[i], dtype);
        RankInputs.fill(host, session.topology.rank(), counts[i], dtype);
        inputs[i] = session.device.allocate(counts[i] * 2);
        session.device.upload(host, inputs[i], 0);
      }
      for (int p = 0; p < plan.size(); p++) {
        outputs[p] = session.device.allocate(counts[(int) plan.get(p)[0]] * 2);
      }
      session.barrier();
      int calls = 0;
      for (int round = 0; round < 40; round++) {
        for (int p = 0; p < plan.size(); p++) {
          int size = (int) plan.get(p)[0];
          session.allReduce(
              runners.get((int) plan.get(p)[1]), inputs[size], outputs[p], counts[size], dtype);
          calls++;
        }
      }
      session.stream.synchronize();
      for (int i = 0; i < counts.length; i++) {
        RankInputs reference = RankInputs.reference(dtype, counts[i], session.topology.worldSize());
        for (int p = 0; p < plan.size(); p++) {
          if (plan.get(p)[0] == i) {
            MemorySegment result = RankInputs.allocateHost(arena, counts[i], dtype);
            session.device.download(outputs[p], 0, result, session.stream);
            RankInputs.Verdict verdict = reference.validate(result, null);
            if (!verdict.passed()) {
              session.fail(
                  "back-to-back "
                      + runners.get((int) plan.get(p)[1]).label()
                      + " x "
                      + counts[i]
                      + ": "
                      + verdict.failure());
            }
          }
        }
        inputs[i].close();
      }
      for (DeviceBuffer output : outputs) {
        output.close();
      }
      session.report("back-to-back: " + calls + " calls, sizes and kernels changing, no sync");
    }
  }

  /** A graph of several kernels and sizes, replayed many times, with eager calls in between. */
  private void graphReplay() {
    List<AllReduceRunner> runners = session.customRunners();
    if (runners.isEmpty()) {
      return;
    }
    DType dtype = DType.FP16;
    long[] counts = {32_768, 524_288, 2_097_152};
    try (Arena arena = Arena.ofConfined()) {
      DeviceBuffer[] inputs = new DeviceBuffer[counts.length];
      DeviceBuffer[] outputs = new DeviceBuffer[counts.length];
      for (int i = 0; i < counts.length; i++) {
        MemorySegment host = RankInputs.allocateHost(arena, counts[i], dtype);
        RankInputs.fill(host, session.topology.rank(), counts[i], dtype);
        inputs[i] = session.device.allocate(counts[i] * 2);
        outputs[i] = session.device.allocate(counts[i] * 2);
        session.device.upload(host, inputs[i], 0);
      }
      session.barrier();
      Graph graph =
          session.device.capture(
              session.stream,
              () -> {
                for (int repeat = 0; repeat < 2; repeat++) {
                  for (int i = 0; i < counts.length; i++) {
                    session.allReduce(runners.get(i), inputs[i], outputs[i], counts[i], dtype);
                  }
                }
              });
      for (int replay = 0; replay < 50; replay++) {
        graph.replay(session.stream);
        if (replay % 10 == 0) {
          session.allReduce(runners.get(replay % 3), inputs[0], outputs[0], counts[0], dtype);
        }
      }
      session.stream.synchronize();
      for (int i = 0; i < counts.length; i++) {
        RankInputs reference = RankInputs.reference(dtype, counts[i], session.topology.worldSize());
        MemorySegment result = RankInputs.allocateHost(arena, counts[i], dtype);
        session.device.download(outputs[i], 0, result, session.stream);
        RankInputs.Verdict verdict = reference.validate(result, null);
        if (!verdict.passed()) {
          session.fail("graph replay x " + counts[i] + ": " + verdict.failure());
        }
        inputs[i].close();
        outputs[i].close();
      }
      graph.close();
      session.report("graph replay: 50 replays of 6 kernels, eager calls in between");
    }
  }
}
