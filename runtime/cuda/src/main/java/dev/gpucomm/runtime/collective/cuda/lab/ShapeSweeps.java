package dev.gpucomm.runtime.collective.cuda.lab;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.cuda.KernelShape;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sweeps how the IPC kernels run (grids, pipeline depths), changed on every rank at once between
 * timings, and puts the communicator's shape back afterwards.
 */
final class ShapeSweeps {
  private final DiagnosticsSession session;
  private final AllReduceTiming timing;

  ShapeSweeps(DiagnosticsSession session, AllReduceTiming timing) {
    this.session = session;
    this.timing = timing;
  }

  /** Sweeps each IPC kernel's grid, changed on every rank at once (graph timing, 50 samples). */
  void grids() {
    if (!session.hasIpcAllReduce()) {
      return;
    }
    KernelShape original = session.ipcAllReduce().kernelShape();
    int[] gridChoices = {32, 64, 96, 132};
    Map<String, long[]> sweeps = new LinkedHashMap<>();
    sweeps.put("lamport", new long[] {32, 64});
    sweeps.put("lamport2", new long[] {32, 64, 128});
    sweeps.put("oneshot", new long[] {128, 512, 4096});
    sweeps.put("twoshot", new long[] {128, 512, 4096});
    sweeps.put("oneshot_ws", new long[] {1024, 4096});
    sweeps.put("twoshot_ws", new long[] {1024, 4096});
    if (session.isRankZero()) {
      session.out.println("tune: starting from " + original);
    }
    for (Map.Entry<String, long[]> sweep : sweeps.entrySet()) {
      String variant = sweep.getKey();
      for (int grid : gridChoices) {
        if (grid > session.device.multiprocessors()) {
          continue;
        }
        retune(
            original.withGrids(
                variant.startsWith("oneshot") ? grid : original.oneShotBlocks(),
                variant.startsWith("twoshot") ? grid : original.twoShotBlocks(),
                variant.startsWith("lamport") ? grid : original.lamportBlocks()));
        for (long tokens : sweep.getValue()) {
          AllReduceRunner runner =
              AllReduceRunner.kernel(variant).labelled(variant + "/" + grid + "b");
          if (session.fits(runner, tokens * DiagnosticsSession.HIDDEN * 2)) {
            timing.time(runner, (int) tokens, tokens * DiagnosticsSession.HIDDEN, DType.BF16, 50);
          }
        }
      }
    }
    retune(original);
  }

  /**
   * Sweeps the pipeline depth of the flag kernels and their warp-specialized variants at 16 and 64
   * MiB, from the 2 chunks of the four-rank two-shot default up (graph timing, 50 samples).
   */
  void chunks() {
    if (!session.hasIpcAllReduce()) {
      return;
    }
    KernelShape original = session.ipcAllReduce().kernelShape();
    for (int chunks : new int[] {2, 4, 8, 16, 32, 64}) {
      retune(original.withChunks(chunks, chunks));
      for (String variant : List.of("oneshot", "twoshot", "oneshot_ws", "twoshot_ws")) {
        for (long tokens : new long[] {1024, 4096}) {
          timing.time(
              AllReduceRunner.kernel(variant).labelled(variant + "/" + chunks + "c"),
              (int) tokens,
              tokens * DiagnosticsSession.HIDDEN,
              DType.BF16,
              50);
        }
      }
    }
    retune(original);
  }

  private void retune(KernelShape shape) {
    session.stream.synchronize();
    session.barrier();
    session.ipcAllReduce().tune(shape);
    session.barrier();
  }
}
