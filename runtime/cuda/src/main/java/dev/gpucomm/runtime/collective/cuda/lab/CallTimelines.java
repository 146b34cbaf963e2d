package dev.gpucomm.runtime.collective.cuda.lab;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.cuda.CallTimeline;
import dev.gpucomm.runtime.collective.cuda.IpcAllReduce;
import dev.gpucomm.runtime.device.DeviceBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Where the time of back-to-back eager calls goes, step by step on each GPU (CUDA events at each
 * step of the call, on the stream that runs it): a kernel with and without its host path, at a
 * small and at the large sizes. Every rank prints its own timeline.
 */
final class CallTimelines {
  private static final int WARM_UP = 20;
  private static final int CALLS = 40;
  private static final int SKIPPED = 5;

  private final DiagnosticsSession session;

  CallTimelines(DiagnosticsSession session) {
    this.session = session;
  }

  void run() {
    // The kernel whose host path this node's calls take by default, beside the same kernel
    // without it; the one-shot on two ranks when the host path is off.
    IpcAllReduce kernels = session.ipcAllReduce();
    List<String> host = kernels.hostPathKernels();
    String withHost = host.isEmpty() ? null : host.getFirst();
    String plain = withHost == null ? "oneshot_ws" : IpcAllReduce.withoutHostPath(withHost);
    List<String> variants = withHost == null ? List.of(plain) : List.of(plain, withHost);
    for (int tokens : new int[] {32, 2048, 4096}) {
      long count = (long) tokens * DiagnosticsSession.HIDDEN;
      for (String variant : variants) {
        trace(AllReduceRunner.kernel(variant), tokens, count);
      }
      if (tokens == 4096 && withHost != null) {
        // The kernel alone over the bytes that the host path leaves to NVLink at this size.
        int elementBytes = DType.BF16.bytes();
        long hostBytes = kernels.hostPathShareOf(withHost, count * elementBytes);
        long nvlinkCount = count - hostBytes / elementBytes;
        trace(AllReduceRunner.kernel(plain), tokens, nvlinkCount);
      }
    }
  }

  private void trace(AllReduceRunner runner, int tokens, long count) {
    DType dtype = DType.BF16;
    long bytes = count * dtype.bytes();
    try (Arena arena = Arena.ofConfined();
        DeviceBuffer input = session.device.allocate(bytes);
        DeviceBuffer output = session.device.allocate(bytes);
        CallTimeline timeline = new CallTimeline(session.device)) {
      MemorySegment host = RankInputs.allocateHost(arena, count, dtype);
      RankInputs.fill(host, session.topology.rank(), count, dtype);
      session.device.upload(host, input, 0);
      session.barrier();
      for (int i = 0; i < WARM_UP; i++) {
        session.allReduce(runner, input, output, count, dtype);
      }
      session.stream.synchronize();
      session.barrier();
      session.ipcAllReduce().attachTimeline(timeline);
      try {
        for (int i = 0; i < CALLS; i++) {
          session.allReduce(runner, input, output, count, dtype);
        }
      } finally {
        session.ipcAllReduce().attachTimeline(null);
      }
      session.stream.synchronize();
      session.out.printf(
          "timeline rank %d, %s, %d tokens (%d bytes), %d calls after %d:%n%s",
          session.topology.rank(),
          runner.label(),
          tokens,
          bytes,
          CALLS - SKIPPED,
          SKIPPED,
          timeline.report(SKIPPED));
      session.barrier();
    }
  }
}
