package dev.gpucomm.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** What the scenarios read from a results ConfigMap's report.json. */
final class Reports {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Reports() {}

  /** A benchmark sweep's report: the world it ran on and the sizes it measured. */
  record Benchmark(int worldSize, List<Long> bytes, JsonNode json) {}

  /** A host-IR program's report: what ran, with which passes, and its two timings. */
  record Program(
      String program,
      List<String> passes,
      double pipelinedMicros,
      double unpipelinedMicros,
      JsonNode json) {}

  static Benchmark benchmark(String reportJson) {
    JsonNode json = parse(reportJson);
    List<Long> bytes = new ArrayList<>();
    json.path("sizes").forEach(size -> bytes.add(size.path("bytes").asLong()));
    return new Benchmark(json.path("worldSize").asInt(), bytes, json);
  }

  static Program program(String reportJson) {
    JsonNode json = parse(reportJson);
    List<String> passes = new ArrayList<>();
    json.path("passes").forEach(pass -> passes.add(pass.asText()));
    return new Program(
        json.path("program").asText(),
        passes,
        json.path("pipelinedMicros").asDouble(Double.NaN),
        json.path("unpipelinedMicros").asDouble(Double.NaN),
        json);
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException("report.json is not JSON", e);
    }
  }
}
