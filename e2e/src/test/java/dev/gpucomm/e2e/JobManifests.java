package dev.gpucomm.e2e;

import java.util.List;

/**
 * The CommJobs the scenarios apply, as the YAML a user writes: small sizes and few iterations,
 * because the scenarios check that the parts work together, not how fast they are.
 */
final class JobManifests {
  private JobManifests() {}

  /** Token counts of the small sweep, and the bytes per rank they make (bf16, hidden 256). */
  static final List<Integer> SWEEP_TOKENS = List.of(1, 16, 128);

  static final int SWEEP_HIDDEN = 256;
  static final List<Long> SWEEP_BYTES =
      SWEEP_TOKENS.stream().map(t -> (long) t * SWEEP_HIDDEN * 2).toList();

  /**
   * A small all-reduce sweep on one pod of two ranks (the CPU backend runs a job's ranks on one
   * node), every algorithm of the device measured.
   */
  static String allReduceSweep(String name, String device, String heuristic) {
    return """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata:
          name: %s
        spec:
          worldSize: 2
          ranksPerPod: 2
          device: %s
          workload:
            kind: benchmark
            benchmark:
              collective: allreduce
              dtype: bf16
              hiddenSize: %d
              tokens: %s
              algorithms: %s
              warmupIterations: 2
              iterations: 5
              cudaGraph: %s
          heuristic:
            name: %s
          timeoutSeconds: 300
        """
        .formatted(
            name,
            device,
            SWEEP_HIDDEN,
            SWEEP_TOKENS,
            algorithms(device),
            !device.equals("cpu"),
            heuristic);
  }

  /**
   * A fabric sweep of {@code pods} pods of one rank each, moving {@code bytes} per transfer, the
   * median of {@code iterations} transfers per direction.
   */
  static String fabricSweep(String name, String device, int pods, long bytes, int iterations) {
    return """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata:
          name: %s
        spec:
          worldSize: %d
          ranksPerPod: 1
          device: %s
          workload:
            kind: fabric
            fabric:
              bytes: %s
              iterations: %d
              slowFraction: 0.5
          timeoutSeconds: 300
        """
        .formatted(name, pods, device, bytes, iterations);
  }

  /** {@code yaml} with pass/fail floors under spec.expect (each rule one line of flow YAML). */
  static String withExpect(String yaml, String... rules) {
    StringBuilder expect = new StringBuilder("  expect:\n");
    for (String rule : rules) {
      expect.append("    - ").append(rule).append("\n");
    }
    return yaml + expect;
  }

  /** Every all-reduce algorithm of the device: ring is the CPU backend's stand-in for NCCL. */
  static List<String> algorithms(String device) {
    return device.equals("cpu")
        ? List.of("auto", "oneshot", "twoshot", "ring")
        : List.of("auto", "nccl", "oneshot", "twoshot");
  }

  /** An all-reduce that runs far longer than any scenario waits: it is there to be interrupted. */
  static String longAllReduce(String name, String device, int timeoutSeconds) {
    return """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata:
          name: %s
        spec:
          worldSize: 2
          ranksPerPod: 2
          device: %s
          workload:
            kind: benchmark
            benchmark:
              collective: allreduce
              dtype: bf16
              hiddenSize: 4096
              tokens: [256]
              algorithms: [oneshot]
              warmupIterations: 0
              iterations: 1000000
              cudaGraph: false
          timeoutSeconds: %d
        """
        .formatted(name, device, timeoutSeconds);
  }

  /**
   * An all-reduce of a few seconds. The operator restarted while it runs may come back before or
   * after it ends: either way the new operator must adopt the pods, not make new ones.
   */
  static String mediumAllReduce(String name, String device) {
    return """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata:
          name: %s
        spec:
          worldSize: 2
          ranksPerPod: 2
          device: %s
          workload:
            kind: benchmark
            benchmark:
              collective: allreduce
              dtype: bf16
              hiddenSize: 1024
              tokens: [16, 64]
              algorithms: [auto, oneshot, twoshot]
              warmupIterations: 2
              iterations: 30
              cudaGraph: false
          timeoutSeconds: 300
        """
        .formatted(name, device);
  }

  /**
   * The small sweep on two pods of one rank each, which must finish within the timeout. Ranks of
   * different pods share no IPC buffers, so it measures only the device's NCCL (ring on the CPU).
   */
  static String twoPodsWithTimeout(String name, String device, int timeoutSeconds) {
    return allReduceSweep(name, device, "trtllm")
        .replace("ranksPerPod: 2", "ranksPerPod: 1")
        .replace(algorithms(device).toString(), device.equals("cpu") ? "[ring]" : "[nccl]")
        .replace("timeoutSeconds: 300", "timeoutSeconds: " + timeoutSeconds);
  }

  /** The algorithms a job of several pods sweeps on the CPU backend: within and across pods. */
  static final List<String> MULTI_POD_ALGORITHMS = List.of("ring", "hierarchical", "auto");

  /** The small sweep on {@code pods} pods of {@code ranksPerPod} ranks, across the pods' links. */
  static String multiPodSweep(String name, String device, int pods, int ranksPerPod) {
    return allReduceWithLayout(name, device, pods * ranksPerPod, ranksPerPod)
        .replace(algorithms(device).toString(), MULTI_POD_ALGORITHMS.toString());
  }

  /**
   * An all-reduce across two pods of two ranks that runs until {@code timeoutSeconds}: there to
   * have a pod's link cut under it.
   */
  static String longMultiPodAllReduce(String name, String device, int timeoutSeconds) {
    return longAllReduce(name, device, timeoutSeconds)
        .replace("worldSize: 2", "worldSize: 4")
        .replace("algorithms: [oneshot]", "algorithms: [ring]");
  }

  static String allReduceWithLayout(String name, String device, int worldSize, int ranksPerPod) {
    return allReduceSweep(name, device, "trtllm")
        .replace("worldSize: 2", "worldSize: " + worldSize)
        .replace("ranksPerPod: 2", "ranksPerPod: " + ranksPerPod);
  }

  /** The job with {@code field} (a top-level spec field, {@code "suspend: true"}) added. */
  static String withSpecField(String yaml, String field) {
    return yaml + "  " + field + "\n";
  }

  /** The job compared with the report in ConfigMap {@code baseline}. */
  static String withBaseline(String yaml, String baseline, double maxSlowdownPercent) {
    return yaml
        + """
          baseline:
            configMapRef: %s
            maxSlowdownPercent: %s
        """
            .formatted(baseline, maxSlowdownPercent);
  }

  /** A row-parallel linear layer, matmul chunks overlapped with the all-reduce on streams. */
  static String rowParallelLinear(String name, String device) {
    return """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata:
          name: %s
        spec:
          worldSize: 2
          ranksPerPod: 2
          device: %s
          workload:
            kind: program
            program:
              name: rowParallelLinear
              shape: {m: 64, n: 64, k: 128}
              chunks: 2
              passes: [assignStreams]
              streams: 2
              dtype: fp32
              warmupIterations: 1
              iterations: 3
          timeoutSeconds: 300
        """
        .formatted(name, device);
  }
}
