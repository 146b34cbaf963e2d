package dev.gpucomm.api.v1alpha1.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * report.json documents in the runtime's schema (version 1), built the way rank 0 writes them: one
 * entry per size with every algorithm's median timings.
 */
final class TestReports {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final ObjectNode root = MAPPER.createObjectNode();
  private final ArrayNode sizes;

  private TestReports(String job, String collective) {
    root.put("schemaVersion", 1);
    root.put("job", job);
    root.put("collective", collective);
    root.put("dtype", "bf16");
    root.put("hiddenSize", 8192);
    root.put("worldSize", 8);
    root.put("ranksPerPod", 4);
    root.put("device", "cuda");
    root.put("deviceName", "NVIDIA H200");
    root.put("host", "node-a");
    root.put("heuristic", "trtllm");
    root.put("startedAt", "2025-01-01T00:00:00Z");
    sizes = root.putArray("sizes");
  }

  static TestReports allreduce(String job) {
    return new TestReports(job, "allreduce");
  }

  /** Adds a size; {@code timings} are (algorithm, eagerMicros, graphMicros, busBandwidth) rows. */
  TestReports size(long bytes, Integer tokens, String chosen, Object[]... timings) {
    ObjectNode size = sizes.addObject();
    size.put("bytes", bytes);
    // written as the runtime writes it: every field, an absent one as null
    size.put("tokens", tokens);
    size.put("chosen", chosen);
    size.put("chosenReason", "test");
    ArrayNode measurements = size.putArray("measurements");
    for (Object[] timing : timings) {
      ObjectNode measurement = measurements.addObject();
      measurement.put("algorithm", (String) timing[0]);
      measurement.put("eagerMicros", ((Number) timing[1]).doubleValue());
      if (timing[2] == null) {
        measurement.putNull("graphMicros");
      } else {
        measurement.put("graphMicros", ((Number) timing[2]).doubleValue());
      }
      measurement.put("algBandwidthGBps", ((Number) timing[3]).doubleValue() / 1.75);
      measurement.put("busBandwidthGBps", ((Number) timing[3]).doubleValue());
      measurement.put("maxRelativeError", 0.0039);
      measurement.put("iterations", 200);
    }
    return this;
  }

  /** A run of the CPU backend on one rank, as the quick start's smallest job is. */
  TestReports onOneCpuRank() {
    root.put("worldSize", 1);
    root.put("ranksPerPod", 1);
    root.put("device", "cpu");
    root.put("deviceName", "cpu (2 cores)");
    return this;
  }

  /** Marks the calls as in place ({@code inPlace: true}; reports without the field were not). */
  TestReports inPlace() {
    root.put("inPlace", true);
    return this;
  }

  static Object[] timing(String algorithm, double eagerMicros, Double graphMicros, double busBw) {
    return new Object[] {algorithm, eagerMicros, graphMicros, busBw};
  }

  String json() {
    return root.toString();
  }
}
