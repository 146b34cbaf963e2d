package dev.gpucomm.api.v1alpha1.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * report.json: a {@link Report} as JSON with stable field names (the record components), {@code
 * schemaVersion} first and {@code kind} ({@code benchmark} or {@code program}) second; every field
 * is written, absent values as {@code null}. Reading checks the version and names the source and
 * the field of any error.
 */
public final class ReportJson {
  public static final String KIND_BENCHMARK = "benchmark";
  public static final String KIND_PROGRAM = "program";
  public static final String KIND_FABRIC = "fabric";

  private static final ObjectMapper WRITER =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  private static final ObjectMapper READER =
      JsonMapper.builder()
          .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          // one report, each field once: text after it, or a field twice, is not what was written
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          // a number or a true written as text ("12.5", "true") is not what gpucomm writes
          .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
          .build();

  /** Fields every benchmark report holds a value for, and what each size and measurement does. */
  private static final List<String> BENCHMARK_VALUES =
      List.of("job", "collective", "dtype", "sizes");

  private static final List<String> SIZE_VALUES = List.of("measurements");
  private static final List<String> MEASUREMENT_VALUES = List.of("algorithm");

  /** A measurement's times, bandwidths, error and count: none of them negative. */
  private static final List<String> MEASUREMENT_FIGURES =
      List.of(
          "eagerMicros",
          "graphMicros",
          "algBandwidthGBps",
          "busBandwidthGBps",
          "maxRelativeError",
          "iterations");

  /** A rank's timing figures, held to the measurement's rules. */
  private static final List<String> RANK_TIMING_FIGURES =
      List.of("medianMicros", "spreadMicros", "ownMicros");

  /** The one field of a program report that may be absent: it came after schema version 1. */
  private static final String PROGRAM_SM_PARTITION = "smPartition";

  /** The one field of a benchmark report that may be absent: it came after schema version 1. */
  private static final String BENCHMARK_IN_PLACE = "inPlace";

  /** The one field of a size that may be absent: it came after schema version 1. */
  private static final String SIZE_NOT_MEASURED = "notMeasured";

  private static final String BENCHMARK_FABRIC = "fabric";
  private static final String BENCHMARK_PATTERN = "pattern";

  /** Per-rank fields of a benchmark report, absent from reports written before them. */
  private static final String BENCHMARK_RANKS = "ranks";

  private static final String BENCHMARK_RANK_TIMINGS = "rankTimings";
  private static final String BENCHMARK_OUTLIER_THRESHOLD = "outlierThresholdPercent";

  /** The one field of a rank's timing that may be absent: it came after the timings. */
  private static final String RANK_TIMING_OWN = "ownMicros";

  private static final Pattern MISSING =
      Pattern.compile("Missing (?:required )?creator property '([^']+)'");

  private ReportJson() {}

  /**
   * The report as JSON text, ending with a newline.
   *
   * @throws ReportFormatException when a figure is not a finite number: Jackson would write it as
   *     the text "NaN" or "Infinity", which the reader refuses, so no report is written that
   *     gpucomm cannot read back
   */
  public static String write(Report report) {
    ObjectNode fields = WRITER.valueToTree(report);
    checkValues(fields, "", "of job " + report.job(), true);
    ObjectNode root = WRITER.createObjectNode();
    root.set("schemaVersion", fields.remove("schemaVersion"));
    root.put("kind", kindOf(report));
    root.setAll(fields);
    try {
      return WRITER.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("could not write the report of job " + report.job(), e);
    }
  }

  /**
   * Reads report.json from a file.
   *
   * @throws ReportFormatException naming the file, and the field when one is wrong
   */
  public static Report read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ReportFormatException(
          "report " + file + ": cannot read it (" + e.getClass().getSimpleName() + ")", e);
    }
    return parse(text, file.toString());
  }

  /** Reads a benchmark report; a program report is an error naming the source. */
  public static BenchmarkReport readBenchmark(Path file) {
    return benchmark(read(file), file.toString());
  }

  /**
   * Parses report.json text; {@code source} names it in errors.
   *
   * @throws ReportFormatException naming the source, and the field when one is wrong
   */
  public static Report parse(String json, String source) {
    JsonNode root;
    try {
      root = READER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new ReportFormatException("report " + source + ": " + JsonSyntax.describe(e));
    }
    if (root == null || !root.isObject()) {
      throw new ReportFormatException(
          "report " + source + ": expected a JSON object at the top level");
    }
    JsonNode version = root.get("schemaVersion");
    if (version == null || !version.isIntegralNumber()) {
      throw new ReportFormatException(
          "report " + source + ": field schemaVersion: missing or not a whole number");
    }
    JsonNode kindNode = root.get("kind");
    String kind;
    if (kindNode != null) {
      kind = kindNode.asText();
    } else if (root.has("sizes")) {
      kind = KIND_BENCHMARK; // written before "kind" existed, or by plain Jackson
    } else if (root.has("program")) {
      kind = KIND_PROGRAM;
    } else {
      throw new ReportFormatException(
          "report "
              + source
              + ": field kind: missing, and neither sizes (a benchmark) nor program is there");
    }
    Class<? extends Report> type;
    int supported;
    switch (kind) {
      case KIND_BENCHMARK -> {
        type = BenchmarkReport.class;
        supported = BenchmarkReport.SCHEMA_VERSION;
      }
      case KIND_PROGRAM -> {
        type = ProgramReport.class;
        supported = ProgramReport.SCHEMA_VERSION;
      }
      case KIND_FABRIC -> {
        type = FabricReport.class;
        supported = FabricReport.SCHEMA_VERSION;
      }
      default ->
          throw new ReportFormatException(
              "report "
                  + source
                  + ": field kind: unknown value '"
                  + kind
                  + "' (expected benchmark, program or fabric)");
    }
    if (version.intValue() < 1 || version.intValue() > supported) {
      throw new ReportFormatException(
          "report "
              + source
              + ": field schemaVersion: version "
              + version.asText()
              + " is not one this gpucomm reads (1 to "
              + supported
              + ")");
    }
    // a fabric report's matrices hold nulls where a pair was not measured; a benchmark's lists
    // never
    checkValues(root, "", source, type != BenchmarkReport.class);
    if (type == BenchmarkReport.class) {
      checkBenchmark(root, source);
    }
    if (type == ProgramReport.class && !root.has(PROGRAM_SM_PARTITION)) {
      // Written before the field existed: those runs did not partition the SMs.
      ((ObjectNode) root).putNull(PROGRAM_SM_PARTITION);
    }
    if (type == BenchmarkReport.class && !root.has(BENCHMARK_IN_PLACE)) {
      // Written before the field existed: those runs were all out of place.
      ((ObjectNode) root).put(BENCHMARK_IN_PLACE, false);
    }
    if (type == BenchmarkReport.class && root.get("sizes") != null) {
      for (JsonNode size : root.get("sizes")) {
        if (size.isObject() && !size.has(SIZE_NOT_MEASURED)) {
          // Written before the field existed: those sweeps ran every point or failed.
          ((ObjectNode) size).putArray(SIZE_NOT_MEASURED);
        }
      }
    }
    if (type == BenchmarkReport.class && !root.has(BENCHMARK_PATTERN)) {
      // Written before the field existed, or of the plain collective: no fused pattern.
      ((ObjectNode) root).putNull(BENCHMARK_PATTERN);
    }
    if (type == BenchmarkReport.class && !root.has(BENCHMARK_FABRIC)) {
      // Written before the field existed: no transports were recorded.
      ((ObjectNode) root).putArray(BENCHMARK_FABRIC);
    }
    if (type == BenchmarkReport.class) {
      // Written before per-rank figures existed: they kept only the slowest rank's.
      ObjectNode benchmark = (ObjectNode) root;
      if (!benchmark.has(BENCHMARK_RANKS)) {
        benchmark.putArray(BENCHMARK_RANKS);
      }
      if (!benchmark.has(BENCHMARK_RANK_TIMINGS)) {
        benchmark.putArray(BENCHMARK_RANK_TIMINGS);
      }
      for (JsonNode timing : benchmark.get(BENCHMARK_RANK_TIMINGS)) {
        if (timing.isObject() && !timing.has(RANK_TIMING_OWN)) {
          // Written before the field existed: no rank's own time was measured.
          ((ObjectNode) timing).putNull(RANK_TIMING_OWN);
        }
      }
      if (!benchmark.has(BENCHMARK_OUTLIER_THRESHOLD)) {
        benchmark.put(
            BENCHMARK_OUTLIER_THRESHOLD, BenchmarkReport.DEFAULT_OUTLIER_THRESHOLD_PERCENT);
      }
    }
    try {
      return READER.treeToValue(root, type);
    } catch (JsonMappingException e) {
      throw new ReportFormatException(
          "report " + source + ": field " + path(e) + ": " + problem(e));
    } catch (JsonProcessingException e) {
      throw new ReportFormatException("report " + source + ": " + e.getOriginalMessage());
    }
  }

  /** Every number is finite (1e400 reads as infinity), and no list holds a null unless allowed. */
  private static void checkValues(JsonNode node, String at, String source, boolean nullItems) {
    if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        String item = at + "[" + i + "]";
        if (node.get(i).isNull() && !nullItems) {
          throw fieldProblem(source, item, "null where a value belongs");
        }
        checkValues(node.get(i), item, source, nullItems);
      }
    } else if (node.isObject()) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        String name = at.isEmpty() ? field.getKey() : at + "." + field.getKey();
        checkValues(field.getValue(), name, source, nullItems);
      }
    } else if (node.isNumber() && !Double.isFinite(node.doubleValue())) {
      throw fieldProblem(source, at, "not a finite number");
    }
  }

  /**
   * What the renderers rely on: the fields that name the sweep, sizes with measurements of a named
   * algorithm, at least one rank, and no negative size, count or time.
   */
  private static void checkBenchmark(JsonNode root, String source) {
    requireValues(root, BENCHMARK_VALUES, "", source);
    requireAtLeast(root, "worldSize", 1, "", source);
    requireAtLeast(root, "ranksPerPod", 1, "", source);
    requireAtLeast(root, "hiddenSize", 0, "", source);
    JsonNode sizes = root.get("sizes");
    if (!sizes.isArray()) {
      throw fieldProblem(source, "sizes", "not a list");
    }
    for (int i = 0; i < sizes.size(); i++) {
      String at = "sizes[" + i + "]";
      JsonNode size = sizes.get(i);
      requireValues(size, SIZE_VALUES, at, source);
      requireAtLeast(size, "bytes", 0, at, source);
      requireAtLeast(size, "tokens", 0, at, source);
      JsonNode measurements = size.get("measurements");
      if (!measurements.isArray()) {
        throw fieldProblem(source, at + ".measurements", "not a list");
      }
      for (int j = 0; j < measurements.size(); j++) {
        String measurement = at + ".measurements[" + j + "]";
        requireValues(measurements.get(j), MEASUREMENT_VALUES, measurement, source);
        for (String field : MEASUREMENT_FIGURES) {
          requireNumber(measurements.get(j), field, measurement, source);
          requireAtLeast(measurements.get(j), field, 0, measurement, source);
        }
      }
    }
    JsonNode timings = root.get(BENCHMARK_RANK_TIMINGS);
    if (timings != null && timings.isArray()) {
      for (int i = 0; i < timings.size(); i++) {
        for (String field : RANK_TIMING_FIGURES) {
          requireNumber(timings.get(i), field, BENCHMARK_RANK_TIMINGS + "[" + i + "]", source);
        }
      }
    }
  }

  /**
   * A figure is a JSON number or null. Jackson would read the text "NaN" or "Infinity" as a double,
   * which no comparison with a baseline or an expectation can fail.
   */
  private static void requireNumber(JsonNode object, String field, String at, String source) {
    JsonNode value = object.get(field);
    if (value != null && !value.isNull() && !value.isNumber()) {
      throw fieldProblem(source, at + "." + field, value.toString() + " is not a number");
    }
  }

  private static void requireValues(
      JsonNode object, List<String> fields, String at, String source) {
    for (String field : fields) {
      JsonNode value = object.get(field);
      if (value == null || value.isNull()) {
        throw fieldProblem(source, at.isEmpty() ? field : at + "." + field, "missing");
      }
    }
  }

  private static void requireAtLeast(
      JsonNode object, String field, long least, String at, String source) {
    JsonNode value = object.get(field);
    if (value != null && value.isNumber() && value.doubleValue() < least) {
      throw fieldProblem(
          source, at.isEmpty() ? field : at + "." + field, value.asText() + " is below " + least);
    }
  }

  private static ReportFormatException fieldProblem(String source, String field, String problem) {
    return new ReportFormatException("report " + source + ": field " + field + ": " + problem);
  }

  static BenchmarkReport benchmark(Report report, String source) {
    if (report instanceof BenchmarkReport benchmark) {
      return benchmark;
    }
    throw new ReportFormatException(
        "report " + source + ": holds a " + kindOf(report) + " run, not a benchmark sweep");
  }

  private static String kindOf(Report report) {
    return switch (report) {
      case BenchmarkReport ignored -> KIND_BENCHMARK;
      case ProgramReport ignored -> KIND_PROGRAM;
      case FabricReport ignored -> KIND_FABRIC;
    };
  }

  private static String path(JsonMappingException e) {
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference reference : e.getPath()) {
      if (reference.getFieldName() != null) {
        if (!path.isEmpty()) {
          path.append('.');
        }
        path.append(reference.getFieldName());
      } else if (reference.getIndex() >= 0) {
        path.append('[').append(reference.getIndex()).append(']');
      }
    }
    String missing = missingProperty(e.getOriginalMessage());
    if (missing != null && !path.toString().endsWith(missing)) {
      return path.isEmpty() ? missing : path + "." + missing;
    }
    return path.isEmpty() ? "(top level)" : path.toString();
  }

  private static String problem(JsonMappingException e) {
    if (missingProperty(e.getOriginalMessage()) != null) {
      return "missing";
    }
    if (e instanceof InvalidFormatException invalid && invalid.getTargetType().isEnum()) {
      return "unknown value '"
          + invalid.getValue()
          + "' (expected one of "
          + Arrays.stream(invalid.getTargetType().getEnumConstants())
              .map(Object::toString)
              .collect(Collectors.joining(", "))
          + ")";
    }
    return JsonSyntax.plain(e.getOriginalMessage());
  }

  /** Jackson says "Missing creator property 'x' (index 3)" (or "Missing required …"). */
  private static String missingProperty(String message) {
    Matcher matcher = MISSING.matcher(message == null ? "" : message);
    return matcher.find() ? matcher.group(1) : null;
  }
}
