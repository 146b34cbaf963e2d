package dev.gpucomm.runtime.collective.cuda.lab;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.numeric.ElementCodec;
import dev.gpucomm.runtime.numeric.ReductionTolerance;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Checks what the runtime takes from libraries: the NCCL collectives besides all-reduce, cuBLAS.
 */
final class LibraryChecks {
  private final DiagnosticsSession session;

  LibraryChecks(DiagnosticsSession session) {
    this.session = session;
  }

  void run() {
    ncclCollectives();
    matmul();
  }

  /** NCCL's all-gather, reduce-scatter, broadcast, collective permute and send/receive. */
  private void ncclCollectives() {
    if (!session.communicator.allReduceAlgorithms().contains(Algorithm.NCCL)) {
      return;
    }
    int world = session.topology.worldSize();
    int rank = session.topology.rank();
    DType dtype = DType.FP32;
    ElementCodec codec = ElementCodec.of(dtype);
    long count = 4096;
    long bytes = count * 4;
    try (Arena arena = Arena.ofConfined();
        DeviceBuffer input = session.device.allocate(bytes * world);
        DeviceBuffer output = session.device.allocate(bytes * world)) {
      MemorySegment host = arena.allocate(bytes * world, 16);
      for (long i = 0; i < count * world; i++) {
        codec.write(host, i, rank * 1000 + i % 997);
      }
      session.device.upload(host, input, 0);
      MemorySegment result = arena.allocate(bytes * world, 16);

      session.barrier();
      session.communicator.allGather(Algorithm.NCCL, input, output, count, dtype, session.stream);
      session.device.download(output, 0, result, session.stream);
      expect("all-gather", result, count * world, i -> (i / count) * 1000 + (i % count) % 997);

      session.barrier();
      session.communicator.reduceScatter(
          Algorithm.NCCL, input, output, count, dtype, session.stream);
      session.device.download(output, 0, result.asSlice(0, bytes), session.stream);
      long sumOfRanks = (long) world * (world - 1) / 2;
      expect(
          "reduce-scatter",
          result,
          count,
          i -> sumOfRanks * 1000 + world * ((rank * count + i) % 997));

      session.barrier();
      session.communicator.broadcast(
          Algorithm.NCCL, input, output, count, dtype, world - 1, session.stream);
      session.device.download(output, 0, result.asSlice(0, bytes), session.stream);
      expect("broadcast", result, count, i -> (world - 1) * 1000 + i % 997);

      session.barrier();
      session.communicator.collectivePermute(input, output, count, dtype, session.stream);
      session.device.download(output, 0, result, session.stream);
      expect(
          "collective permute", result, count * world, i -> (i / count) * 1000 + (i % count) % 997);

      session.barrier();
      session.communicator.sendReceive(
          input, (rank + 1) % world, output, (rank + world - 1) % world, bytes, session.stream);
      session.device.download(output, 0, result.asSlice(0, bytes), session.stream);
      expect("send/receive", result, count, i -> ((rank + world - 1) % world) * 1000 + i % 997);
    }
    session.report("nccl all-gather, reduce-scatter, broadcast, collective permute, send/receive");
  }

  private interface Expected {
    double at(long index);
  }

  private void expect(String what, MemorySegment result, long count, Expected expected) {
    ElementCodec codec = ElementCodec.of(DType.FP32);
    for (long i = 0; i < count; i++) {
      if (codec.read(result, i) != expected.at(i)) {
        session.fail(
            what
                + ": element "
                + i
                + " is "
                + codec.read(result, i)
                + ", expected "
                + expected.at(i));
        return;
      }
    }
  }

  /** C = A·B then C += A·B through cuBLAS in every dtype, against float64. */
  private void matmul() {
    int m = 192;
    int n = 320;
    int k = 256;
    for (DType dtype : DType.values()) {
      ElementCodec codec = ElementCodec.of(dtype);
      try (Arena arena = Arena.ofConfined();
          DeviceBuffer a = session.device.allocate((long) m * k * dtype.bytes());
          DeviceBuffer b = session.device.allocate((long) k * n * dtype.bytes());
          DeviceBuffer c = session.device.allocate((long) m * n * dtype.bytes())) {
        MemorySegment hostA = arena.allocate(a.byteSize(), 16);
        MemorySegment hostB = arena.allocate(b.byteSize(), 16);
        codec.fillRandom(hostA, (long) m * k, 11 + session.topology.rank());
        codec.fillRandom(hostB, (long) k * n, 23 + session.topology.rank());
        session.device.upload(hostA, a, 0);
        session.device.upload(hostB, b, 0);
        session.device.matmul().multiply(a, b, c, m, n, k, dtype, false, session.stream);
        session.device.matmul().multiply(a, b, c, m, n, k, dtype, true, session.stream);
        MemorySegment hostC = arena.allocate(c.byteSize(), 16);
        session.device.download(c, 0, hostC, session.stream);
        // C = A·B, then C += A·B: 2·A·B with one more rounding to the dtype in between.
        ReductionTolerance tolerance = ReductionTolerance.forDotProduct(dtype, 2 * k + 1);
        outer:
        for (int row = 0; row < m; row++) {
          for (int column = 0; column < n; column++) {
            double exact = 0;
            double magnitude = 0;
            for (int i = 0; i < k; i++) {
              double product =
                  (double) codec.read(hostA, (long) row * k + i)
                      * codec.read(hostB, (long) i * n + column);
              exact += product;
              magnitude += Math.abs(product);
            }
            double actual = codec.read(hostC, (long) row * n + column);
            double bound =
                2 * tolerance.bound(exact, magnitude) + codec.unitRoundoff() * Math.abs(exact);
            if (!(Math.abs(actual - 2 * exact) <= bound)) {
              session.fail(
                  "matmul "
                      + dtype
                      + " C["
                      + row
                      + ","
                      + column
                      + "] = "
                      + actual
                      + ", expected "
                      + 2 * exact
                      + " ± "
                      + bound);
              break outer;
            }
          }
        }
      }
    }
    session.report("cuBLAS matmul " + m + "x" + n + "x" + k + " bf16, fp16, fp32 (and accumulate)");
  }
}
