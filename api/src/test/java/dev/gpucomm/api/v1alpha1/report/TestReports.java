package dev.gpucomm.api.v1alpha1.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * report.json documents in the runtime's schema (version 1), built the way rank 0 writes them: one
 * entry per size with every algorithm's median timings. Shared with the operator's tests through
 * this module's test jar.
 */
public final class TestReports {
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

  public static TestReports allreduce(String job) {
    return new TestReports(job, "allreduce");
  }

  /** Adds a size; {@code timings} are (algorithm, eagerMicros, graphMicros, busBandwidth) rows. */
  public TestReports size(long bytes, Integer tokens, String chosen, Object[]... timings) {
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

  /** Adds what {@code rank} saw of {@code communicator}'s transports, crossing pods over IB. */
  public TestReports fabric(String communicator, int rank) {
    ArrayNode fabric =
        root.has("fabric") ? (ArrayNode) root.get("fabric") : root.putArray("fabric");
    ObjectNode entry = fabric.addObject();
    entry.put("communicator", communicator);
    entry.put("rank", rank);
    entry.putArray("intraNode");
    entry.putArray("interNode").add("ib");
    entry.putArray("nics").add("mlx5_0");
    entry.putArray("intraNodePaths");
    entry.put("summary", "inter-node ib via mlx5_0");
    entry.put("unknownReason", "");
    return this;
  }

  /**
   * Names the node each rank ran on (rank i on {@code nodes[i]}) and gives every rank its own
   * timings of each algorithm of the sizes added so far: rank i's median is the slowest rank's less
   * i µs.
   */
  public TestReports ranksOn(String... nodes) {
    ArrayNode ranks = root.putArray("ranks");
    ArrayNode timings = root.putArray("rankTimings");
    for (int rank = 0; rank < nodes.length; rank++) {
      ObjectNode identity = ranks.addObject();
      identity.put("rank", rank);
      identity.put("pod", root.get("job").asText() + "-" + rank);
      identity.put("node", nodes[rank]);
      identity.put("host", nodes[rank]);
      identity.putNull("gpuUuid");
      identity.putNull("pciBusId");
      identity.putArray("nics");
      for (JsonNode size : sizes) {
        for (JsonNode measurement : size.get("measurements")) {
          ObjectNode timing = timings.addObject();
          timing.put("bytes", size.get("bytes").asLong());
          timing.put("algorithm", measurement.get("algorithm").asText());
          timing.put("rank", rank);
          timing.put("medianMicros", measurement.get("eagerMicros").asDouble() - rank);
          timing.put("spreadMicros", 1.0);
          timing.putNull("ownMicros");
        }
      }
    }
    return this;
  }

  /** Marks the calls as in place ({@code inPlace: true}; reports without the field were not). */
  public TestReports inPlace() {
    root.put("inPlace", true);
    return this;
  }

  /**
   * The report.json of a fabric sweep between pods, one pod per node of {@code nodes}: {@code
   * gbps[a][b]} is what pod a measured towards pod b (null on the diagonal).
   */
  public static String fabricSweep(String job, List<String> nodes, Double[][] gbps) {
    List<RankIdentity> ranks = new ArrayList<>();
    List<List<Double>> matrix = new ArrayList<>();
    for (int pod = 0; pod < nodes.size(); pod++) {
      ranks.add(
          new RankIdentity(pod, job + "-" + pod, nodes.get(pod), nodes.get(pod), null, null, null));
      matrix.add(Arrays.asList(gbps[pod]));
    }
    return ReportJson.write(
        new FabricReport(
            FabricReport.SCHEMA_VERSION,
            job,
            nodes.size(),
            1,
            "cpu",
            "cpu",
            1 << 20,
            10,
            0.5,
            "2025-01-01T00:00:00Z",
            ranks,
            List.of(),
            new PodMatrix(nodes, matrix, nodes.size() - 1, 1.0)));
  }

  /** A run of the CPU backend on one rank, as the quick start's smallest job is. */
  public TestReports onOneCpuRank() {
    root.put("worldSize", 1);
    root.put("ranksPerPod", 1);
    root.put("device", "cpu");
    root.put("deviceName", "cpu (2 cores)");
    return this;
  }

  public static Object[] timing(
      String algorithm, double eagerMicros, Double graphMicros, double busBw) {
    return new Object[] {algorithm, eagerMicros, graphMicros, busBw};
  }

  public String json() {
    return root.toString();
  }
}
