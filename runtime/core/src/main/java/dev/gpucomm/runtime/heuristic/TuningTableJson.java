package dev.gpucomm.runtime.heuristic;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.report.JsonSyntax;
import dev.gpucomm.runtime.files.BoundedFile;
import dev.gpucomm.runtime.files.ReplacingFile;
import dev.gpucomm.runtime.files.UnreadableFileException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads and writes {@link TuningTable}s as JSON. Layout (schema 2):
 *
 * <pre>{@code
 * {"schemaVersion": 2, "name": "h200-nvlink", "collective": "allreduce",
 *  "curves": [{"worldSize": 4, "ranksPerNode": 4, "device": "NVIDIA H200", "dtype": "bf16",
 *              "ranges": [{"fromBytes": 524288, "toBytes": 741455, "algorithm": "twoshot"}, ...],
 *              "measurements": [{"bytes": 524288, "algorithm": "nccl", "medianMicros": 16.6}, ...]}]}
 * }</pre>
 *
 * {@code ranksPerNode} is the layout the curve was measured with; tables written before layouts
 * were recorded lack it, and their curves are read as of an unrecorded layout. {@code device} is
 * the device model the curve was measured on, as the device names itself; tables written before
 * devices were recorded (schema 1, which is still written for a table without them, so that older
 * gpucomm versions read it) lack it, and their curves speak for any device.
 *
 * <p>Errors name the file (or other source) and the field: {@code tuning table t.json: field
 * curves[0].ranges[1].algorithm: unknown value 'fast' (expected one of nccl, oneshot, twoshot,
 * ring)}.
 */
public final class TuningTableJson {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(SerializationFeature.INDENT_OUTPUT)
          // one table, each field once: text after it, or a field twice, would be dropped silently
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  private TuningTableJson() {}

  /** The table as JSON text. */
  public static String write(TuningTable table) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put(
        "schemaVersion",
        table.curves().stream().anyMatch(TuningCurve::deviceRecorded)
            ? TuningTable.SCHEMA_VERSION
            : 1);
    root.put("name", table.name());
    root.put("collective", table.collective().wireName());
    ArrayNode curves = root.putArray("curves");
    for (TuningCurve curve : table.curves()) {
      ObjectNode curveNode = curves.addObject();
      curveNode.put("worldSize", curve.worldSize());
      if (curve.layoutRecorded()) {
        curveNode.put("ranksPerNode", curve.ranksPerNode());
      }
      if (curve.deviceRecorded()) {
        curveNode.put("device", curve.device());
      }
      curveNode.put("dtype", curve.dtype().wireName());
      ArrayNode ranges = curveNode.putArray("ranges");
      for (SizeRange range : curve.ranges()) {
        ranges
            .addObject()
            .put("fromBytes", range.fromBytes())
            .put("toBytes", range.toBytes())
            .put("algorithm", range.algorithm().wireName());
      }
      ArrayNode measurements = curveNode.putArray("measurements");
      for (MeasuredPoint point : curve.measurements()) {
        measurements
            .addObject()
            .put("bytes", point.bytes())
            .put("algorithm", point.algorithm().wireName())
            .put("medianMicros", point.medianMicros());
      }
    }
    try {
      return MAPPER.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("could not write tuning table " + table.name(), e);
    }
  }

  /** Writes the table to {@code file} atomically (a temporary file in its folder, then a move). */
  public static void write(TuningTable table, Path file) throws IOException {
    ReplacingFile.writeString(file, write(table));
  }

  /**
   * Writes {@code table} to {@code file}, keeping the curves an existing table there holds for
   * other world sizes and dtypes (curves {@code table} also holds are replaced).
   *
   * @return what was written
   * @throws IllegalArgumentException when the existing file is malformed or measured another
   *     collective
   */
  public static TuningTable writeMerged(TuningTable table, Path file) throws IOException {
    TuningTable merged = table;
    if (Files.exists(file)) {
      TuningTable existing = read(file);
      merged =
          new TuningTable(table.name(), table.collective(), existing.mergedWith(table).curves());
    }
    write(merged, file);
    return merged;
  }

  /**
   * Reads a table from a file.
   *
   * @throws IllegalArgumentException naming the file and the field when it is malformed or cannot
   *     be read
   */
  public static TuningTable read(Path file) {
    String text;
    try {
      text = BoundedFile.readText(file, MAX_TABLE_BYTES);
    } catch (UnreadableFileException e) {
      throw new IllegalArgumentException("tuning table " + file + ": " + e.getMessage(), e);
    }
    return parse(text, file.toString());
  }

  /** The largest tuning table read: tables hold a few curves of tens of points. */
  public static final int MAX_TABLE_BYTES = 16 << 20;

  /** A loader for {@link Heuristics#create}: tuning references are file paths. */
  public static Function<String, TuningTable> fileLoader() {
    return reference -> read(Path.of(reference));
  }

  /**
   * Parses a table from JSON text; {@code source} (a file name, a ConfigMap key) names it in
   * errors.
   *
   * @throws IllegalArgumentException naming the source and the field when the text is malformed
   */
  public static TuningTable parse(String json, String source) {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("tuning table " + source + ": " + JsonSyntax.describe(e));
    }
    return new Reader(source).table(root);
  }

  /** Walks the tree, keeping the source name for error messages. */
  private record Reader(String source) {
    TuningTable table(JsonNode root) {
      if (root == null || !root.isObject()) {
        throw new IllegalArgumentException(
            "tuning table " + source + ": expected a JSON object at the top level");
      }
      knownFields(root, "", Set.of("schemaVersion", "name", "collective", "curves"));
      long version = integer(root, "schemaVersion", "");
      if (version < 1 || version > TuningTable.SCHEMA_VERSION) {
        throw error(
            "schemaVersion",
            "version "
                + version
                + " is not one this gpucomm reads (1 to "
                + TuningTable.SCHEMA_VERSION
                + ")");
      }
      String name = text(root, "name", "");
      Collective collective =
          choice(root, "collective", "", Collective::fromWireName, Collective.wireNames());
      JsonNode curvesNode = array(root, "curves", "");
      List<TuningCurve> curves = new ArrayList<>();
      for (int i = 0; i < curvesNode.size(); i++) {
        curves.add(curve(curvesNode.get(i), "curves[" + i + "]"));
      }
      try {
        return new TuningTable(name, collective, curves);
      } catch (IllegalArgumentException e) {
        throw error(firstWord(e.getMessage()), rest(e.getMessage()));
      }
    }

    private TuningCurve curve(JsonNode node, String path) {
      object(node, path);
      knownFields(
          node,
          path,
          Set.of("worldSize", "ranksPerNode", "device", "dtype", "ranges", "measurements"));
      long worldSize = integer(node, "worldSize", path);
      if (worldSize < 1 || worldSize > Integer.MAX_VALUE) {
        throw error(path + ".worldSize", "must be at least 1, got " + worldSize);
      }
      // Tables written before layouts were recorded have no ranksPerNode.
      long ranksPerNode = TuningCurve.LAYOUT_NOT_RECORDED;
      if (node.has("ranksPerNode")) {
        ranksPerNode = integer(node, "ranksPerNode", path);
        if (ranksPerNode < 1 || ranksPerNode > worldSize || worldSize % ranksPerNode != 0) {
          throw error(
              path + ".ranksPerNode",
              "must divide worldSize " + worldSize + ", got " + ranksPerNode);
        }
      }
      // Tables written before devices were recorded have no device: their curves speak for any.
      String device = node.has("device") ? text(node, "device", path) : null;
      DType dtype = choice(node, "dtype", path, DType::fromWireName, DType.wireNames());
      JsonNode rangesNode = array(node, "ranges", path);
      List<SizeRange> ranges = new ArrayList<>();
      for (int i = 0; i < rangesNode.size(); i++) {
        ranges.add(range(rangesNode.get(i), path + ".ranges[" + i + "]"));
      }
      List<MeasuredPoint> measurements = new ArrayList<>();
      if (node.has("measurements")) {
        JsonNode measurementsNode = array(node, "measurements", path);
        for (int i = 0; i < measurementsNode.size(); i++) {
          measurements.add(point(measurementsNode.get(i), path + ".measurements[" + i + "]"));
        }
      }
      try {
        return new TuningCurve(
            (int) worldSize, dtype, ranges, measurements, (int) ranksPerNode, device);
      } catch (IllegalArgumentException e) {
        throw error(path + "." + firstWord(e.getMessage()), rest(e.getMessage()));
      }
    }

    private SizeRange range(JsonNode node, String path) {
      object(node, path);
      knownFields(node, path, Set.of("fromBytes", "toBytes", "algorithm"));
      long from = integer(node, "fromBytes", path);
      long to = integer(node, "toBytes", path);
      Algorithm algorithm = measuredAlgorithm(node, path);
      try {
        return new SizeRange(from, to, algorithm);
      } catch (IllegalArgumentException e) {
        throw error(path + "." + firstWord(e.getMessage()), rest(e.getMessage()));
      }
    }

    private MeasuredPoint point(JsonNode node, String path) {
      object(node, path);
      knownFields(node, path, Set.of("bytes", "algorithm", "medianMicros"));
      long bytes = integer(node, "bytes", path);
      Algorithm algorithm = measuredAlgorithm(node, path);
      JsonNode median = required(node, "medianMicros", path);
      if (!median.isNumber()) {
        throw error(path + ".medianMicros", "expected a number, got " + median);
      }
      try {
        return new MeasuredPoint(bytes, algorithm, median.doubleValue());
      } catch (IllegalArgumentException e) {
        throw error(path + "." + firstWord(e.getMessage()), rest(e.getMessage()));
      }
    }

    private Algorithm measuredAlgorithm(JsonNode node, String path) {
      Algorithm algorithm =
          choice(
              node,
              "algorithm",
              path,
              Algorithm::fromWireName,
              "nccl, oneshot, twoshot, ring, hierarchical, copyengine");
      if (algorithm == Algorithm.AUTO) {
        throw error(
            path + ".algorithm",
            "auto is not a measured algorithm (expected one of nccl, oneshot, twoshot, ring, hierarchical, copyengine)");
      }
      return algorithm;
    }

    private void object(JsonNode node, String path) {
      if (!node.isObject()) {
        throw error(path, "expected an object, got " + node);
      }
    }

    private void knownFields(JsonNode node, String path, Set<String> known) {
      for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!known.contains(name)) {
          throw error(
              join(path, name),
              "unknown field (known fields: "
                  + String.join(", ", known.stream().sorted().toList())
                  + ")");
        }
      }
    }

    private JsonNode required(JsonNode node, String field, String path) {
      JsonNode value = node.get(field);
      if (value == null || value.isNull()) {
        throw error(join(path, field), "missing");
      }
      return value;
    }

    private long integer(JsonNode node, String field, String path) {
      JsonNode value = required(node, field, path);
      if (!value.isIntegralNumber() || !value.canConvertToLong()) {
        throw error(join(path, field), "expected a whole number, got " + value);
      }
      return value.longValue();
    }

    private String text(JsonNode node, String field, String path) {
      JsonNode value = required(node, field, path);
      if (!value.isTextual()) {
        throw error(join(path, field), "expected a string, got " + value);
      }
      return value.textValue();
    }

    private JsonNode array(JsonNode node, String field, String path) {
      JsonNode value = required(node, field, path);
      if (!value.isArray()) {
        throw error(join(path, field), "expected an array, got " + value);
      }
      return value;
    }

    private <T> T choice(
        JsonNode node,
        String field,
        String path,
        Function<String, Optional<T>> parser,
        String expected) {
      String text = text(node, field, path);
      return parser
          .apply(text)
          .orElseThrow(
              () ->
                  error(
                      join(path, field),
                      "unknown value '" + text + "' (expected one of " + expected + ")"));
    }

    private IllegalArgumentException error(String field, String problem) {
      return new IllegalArgumentException(
          "tuning table " + source + ": field " + field + ": " + problem);
    }

    private static String join(String path, String field) {
      return path.isEmpty() ? field : path + "." + field;
    }

    /** Model validation messages start with the field they are about: "ranges[1].fromBytes: …". */
    private static String firstWord(String message) {
      int colon = message.indexOf(": ");
      return colon > 0 ? message.substring(0, colon) : "(value)";
    }

    private static String rest(String message) {
      int colon = message.indexOf(": ");
      return colon > 0 ? message.substring(colon + 2) : message;
    }
  }
}
