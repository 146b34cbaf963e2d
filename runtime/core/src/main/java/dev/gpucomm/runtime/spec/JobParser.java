package dev.gpucomm.runtime.spec;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Reads a CommJob from YAML or JSON text as strictly as the API server would: unknown fields,
 * unknown enum values, wrong scalar types and duplicate keys are errors naming the field path.
 */
public final class JobParser {
  private final ObjectMapper yaml = strict(YAMLMapper.builder(new YAMLFactory()));
  private final ObjectMapper json = strict(JsonMapper.builder());

  private static ObjectMapper strict(
      com.fasterxml.jackson.databind.cfg.MapperBuilder<?, ?> builder) {
    return builder
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
        // text after the job (a second YAML document, JSON followed by more) is not ignored
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
        // "4" is not an integer to the API server either.
        .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .addMixIn(CommJobSpec.class, WithoutPodTemplate.class)
        .build();
  }

  /**
   * Parses {@code text}; {@code source} names where it came from in error messages. JSON is
   * recognised by a leading '{'; anything else is read as YAML.
   */
  public CommJob parse(String text, String source) {
    if (text.isBlank()) {
      throw new InvalidJobException(source, "", "empty file (expected a CommJob)");
    }
    boolean isJson = text.stripLeading().startsWith("{");
    ObjectMapper mapper = isJson ? json : yaml;
    JsonNode tree;
    try {
      tree = mapper.readTree(text);
    } catch (MismatchedInputException e) {
      if (e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Trailing token")) {
        throw new InvalidJobException(
            where(source, e),
            "",
            isJson
                ? "text after the CommJob object"
                : "more than one YAML document (a file holds one CommJob)");
      }
      throw malformed(source, isJson ? "JSON" : "YAML", e);
    } catch (JsonProcessingException e) {
      throw malformed(source, isJson ? "JSON" : "YAML", e);
    }
    if (tree == null || tree.isMissingNode() || tree.isNull()) {
      throw new InvalidJobException(source, "", "empty document (expected a CommJob)");
    }
    if (!tree.isObject()) {
      throw new InvalidJobException(source, "", "expected a CommJob object");
    }
    // The API types fill apiVersion and kind in from their annotations, so check the text's own.
    checkHeader(tree, "apiVersion", CommJob.API_VERSION, source);
    checkHeader(tree, "kind", "CommJob", source);
    checkMetadata(tree.path("metadata"), source);
    try {
      return mapper.treeToValue(tree, CommJob.class);
    } catch (UnrecognizedPropertyException e) {
      throw new InvalidJobException(
          source,
          path(e),
          "unknown field '" + e.getPropertyName() + "'" + knownFields(e.getKnownPropertyIds()));
    } catch (InvalidFormatException e) {
      throw new InvalidJobException(source, path(e), badValue(e));
    } catch (MismatchedInputException e) {
      throw new InvalidJobException(
          source, path(e), "expected " + typeName(e.getTargetType()) + offendingText(e));
    } catch (JsonMappingException e) {
      throw new InvalidJobException(source, path(e), firstLine(e.getOriginalMessage()));
    } catch (JsonProcessingException e) {
      throw new InvalidJobException(source, "", firstLine(e.getOriginalMessage()));
    }
  }

  private static void checkHeader(JsonNode tree, String field, String expected, String source) {
    JsonNode value = tree.get(field);
    if (value == null || value.isNull()) {
      throw new InvalidJobException(source, field, "required (" + expected + ")");
    }
    if (!value.isTextual() || !value.asText().equals(expected)) {
      throw new InvalidJobException(
          source, field, "unknown value '" + value.asText() + "' (expected " + expected + ")");
    }
  }

  /** The metadata fields a local job uses; the model would take any other into a side map. */
  private static final List<String> METADATA_FIELDS =
      List.of("name", "namespace", "labels", "annotations");

  /**
   * The API server's checks of what the model would accept silently: metadata's fields are known
   * ones, and its name a string (YAML's {@code name: 123} is a number to the API server too).
   */
  private static void checkMetadata(JsonNode metadata, String source) {
    if (metadata.isMissingNode() || metadata.isNull()) {
      return;
    }
    if (!metadata.isObject()) {
      throw new InvalidJobException(source, "metadata", "expected an object");
    }
    for (String field : (Iterable<String>) metadata::fieldNames) {
      if (!METADATA_FIELDS.contains(field)) {
        throw new InvalidJobException(
            source,
            "metadata",
            "unknown field '" + field + "' (known: " + String.join(", ", METADATA_FIELDS) + ")");
      }
    }
    for (String field : List.of("name", "namespace")) {
      JsonNode value = metadata.get(field);
      if (value != null && !value.isNull() && !value.isTextual()) {
        throw new InvalidJobException(
            source, "metadata." + field, "expected a string, got '" + value.asText() + "'");
      }
    }
  }

  private static String where(String source, JsonProcessingException e) {
    JsonLocation location = e.getLocation();
    return location != null && location.getLineNr() > 0
        ? source + ":" + location.getLineNr()
        : source;
  }

  /** ", got 'x'" for a scalar that has the wrong type, empty when the culprit is not a scalar. */
  private static String offendingText(MismatchedInputException e) {
    if (e.getProcessor() instanceof JsonParser parser) {
      JsonToken token = parser.currentToken();
      if (token != null && token.isScalarValue()) {
        try {
          return ", got '" + parser.getText() + "'";
        } catch (IOException ignored) {
          return "";
        }
      }
    }
    return "";
  }

  private static InvalidJobException malformed(
      String source, String format, JsonProcessingException e) {
    JsonLocation location = e.getLocation();
    String where = source;
    if (location != null && location.getLineNr() > 0) {
      where = source + ":" + location.getLineNr();
    }
    return new InvalidJobException(
        where, "", "malformed " + format + ": " + firstLine(e.getOriginalMessage()));
  }

  private static String badValue(InvalidFormatException e) {
    Class<?> target = e.getTargetType();
    String value = String.valueOf(e.getValue());
    if (target != null && target.isEnum()) {
      String expected =
          Arrays.stream(target.getEnumConstants())
              .map(Object::toString)
              .collect(Collectors.joining(", "));
      return "unknown value '" + value + "' (expected " + expected + ")";
    }
    return "expected " + typeName(target) + ", got '" + value + "'";
  }

  private static String typeName(Class<?> type) {
    if (type == null) {
      return "a different value";
    }
    if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
      return "an integer";
    }
    if (type == Double.class || type == double.class || type == Float.class) {
      return "a number";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (type == String.class) {
      return "a string";
    }
    if (type.isEnum()) {
      return "one of "
          + Arrays.stream(type.getEnumConstants())
              .map(Object::toString)
              .collect(Collectors.joining(", "));
    }
    if (List.class.isAssignableFrom(type)) {
      return "a list";
    }
    return "an object (" + type.getSimpleName().toLowerCase(Locale.ROOT) + ")";
  }

  private static String knownFields(java.util.Collection<Object> known) {
    if (known == null || known.isEmpty()) {
      return "";
    }
    return " (known: "
        + known.stream().map(Object::toString).sorted().collect(Collectors.joining(", "))
        + ")";
  }

  /** The JSON path of a mapping error in the dotted form used by kubectl: a.b[2].c. */
  static String path(JsonMappingException e) {
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
    return path.toString();
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    String line = message.strip().lines().findFirst().orElse("");
    return line.length() > 200 ? line.substring(0, 200) + "…" : line;
  }
}
