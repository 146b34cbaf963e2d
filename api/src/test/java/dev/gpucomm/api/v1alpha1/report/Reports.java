package dev.gpucomm.api.v1alpha1.report;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import java.util.List;

/**
 * Reports for the format tests: a 4-GPU bf16 all-reduce sweep shaped like the H200 anchors. Shared
 * with the runtime's report tests through this module's test jar.
 */
public final class Reports {
  private Reports() {}

  public static Measurement measured(Algorithm algorithm, long bytes, double eager, Double graph) {
    double micros = graph != null ? graph : eager;
    return new Measurement(
        algorithm,
        eager,
        graph,
        BusBandwidth.algBandwidthGBps(bytes, micros),
        BusBandwidth.busBandwidthGBps(Collective.ALLREDUCE, 4, bytes, micros),
        3.9e-3,
        200);
  }

  public static SizeResult size(int tokens, double[] nccl, double[] oneshot, double[] twoshot) {
    long bytes = tokens * 8192L * 2;
    return new SizeResult(
        bytes,
        tokens,
        Algorithm.ONESHOT,
        "tokens "
            + tokens
            + " × hidden 8192 × 2 × world 4 × 2 B / 2^20 = commMB "
            + tokens / 8.0
            + " ≤ 64 for world 4 → oneshot",
        List.of(
            measured(Algorithm.NCCL, bytes, nccl[0], nccl[1]),
            measured(Algorithm.ONESHOT, bytes, oneshot[0], oneshot[1]),
            measured(Algorithm.TWOSHOT, bytes, twoshot[0], twoshot[1] < 0 ? null : twoshot[1])));
  }

  /** World 4: twoshot fastest everywhere, trtllm chose oneshot; twoshot at 2 MB only eager. */
  public static BenchmarkReport h200() {
    return report(
        List.of(
            size(
                32, new double[] {41.9, 16.6}, new double[] {15.2, 12.0}, new double[] {10.8, 8.9}),
            size(
                64,
                new double[] {45.6, 20.1},
                new double[] {20.6, 17.5},
                new double[] {13.7, 11.2}),
            size(
                128, new double[] {46.0, 28.4}, new double[] {30.6, 27.9}, new double[] {19.4, -1}),
            size(
                256,
                new double[] {43.4, 41.3},
                new double[] {50.4, 48.0},
                new double[] {29.3, 26.0})),
        "cuda",
        "NVIDIA H200");
  }

  public static BenchmarkReport report(List<SizeResult> sizes, String device, String deviceName) {
    return new BenchmarkReport(
        BenchmarkReport.SCHEMA_VERSION,
        "ar-tp4",
        Collective.ALLREDUCE,
        DType.BF16,
        8192,
        false,
        4,
        4,
        device,
        deviceName,
        "gpu-node-1",
        "trtllm",
        "2025-11-02T10:00:00Z",
        sizes);
  }

  /** A CPU-backend sweep given in bytes: ring instead of nccl, eager times only. */
  public static BenchmarkReport cpu() {
    List<SizeResult> sizes =
        List.of(
            new SizeResult(
                4096,
                null,
                Algorithm.RING,
                "fixed → nccl; nccl is not available here → ring",
                List.of(
                    measured(Algorithm.RING, 4096, 120.0, null),
                    measured(Algorithm.ONESHOT, 4096, 60.0, null),
                    measured(Algorithm.TWOSHOT, 4096, 80.0, null))),
            new SizeResult(
                65536,
                null,
                Algorithm.RING,
                "fixed → nccl; nccl is not available here → ring",
                List.of(
                    measured(Algorithm.RING, 65536, 300.0, null),
                    measured(Algorithm.ONESHOT, 65536, 420.0, null),
                    measured(Algorithm.TWOSHOT, 65536, 310.0, null))));
    return report(sizes, "cpu", null);
  }

  public static ProgramReport program() {
    return new ProgramReport(
        ProgramReport.SCHEMA_VERSION,
        "rpl-tp4",
        "rowParallelLinear",
        List.of("assignStreams"),
        4,
        4,
        "cuda",
        "NVIDIA H200",
        "gpu-node-1",
        "2025-11-02T10:00:00Z",
        DType.BF16,
        8192,
        8192,
        8192,
        4,
        3,
        50,
        new ProgramTimes(2.0, 2.6, 1.5, 1.0, 412.3),
        2.4e-3,
        "pipelined run: matmuls on 100 of 132 SMs, communication limited to 32 CTAs");
  }
}
