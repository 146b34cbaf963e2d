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
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.validation.EchoedValue;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Reads a CommJob from YAML or JSON text as strictly as the API server would: unknown fields,
 * unknown enum values, wrong scalar types and duplicate keys are errors naming the field path.
 */
public final class JobParser {
  private final ObjectMapper yaml = strict(YAMLMapper.builder(new YAMLFactory()));
  private final ObjectMapper json = strict(JsonMapper.builder());

  private static ObjectMapper strict(
      com.fasterxml.jackson.databind.cfg.MapperBuilder<?, ?> builder) {
    ObjectMapper mapper =
        builder
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            // text after the job (a second YAML document, JSON followed by more) is not ignored
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            // "4" is not an integer to the API server either.
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            // an enum is one of its names, never an index, and never a name padded with spaces
            .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
            .addModule(ExactEnumNames.module())
            .addMixIn(CommJobSpec.class, WithoutPodTemplate.class)
            .build();
    // 12 or true where a string belongs (a name, a label's value) is refused by the API server
    mapper
        .coercionConfigFor(LogicalType.Textual)
        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
    return mapper;
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
      tree = isJson ? mapper.readTree(text) : YamlTree.read(text);
    } catch (YamlTree.SecondDocumentException e) {
      throw new InvalidJobException(
          SyntaxProblem.of(e).where(source), "", SyntaxProblem.of(e).cause());
    } catch (YAMLException e) {
      throw malformed(source, "YAML", e);
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
          "unknown field "
              + EchoedValue.quoted(e.getPropertyName())
              + knownFields(e.getKnownPropertyIds()));
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
          source,
          field,
          "unknown value " + EchoedValue.quoted(value.asText()) + " (expected " + expected + ")");
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
            "unknown field "
                + EchoedValue.quoted(field)
                + " (known: "
                + String.join(", ", METADATA_FIELDS)
                + ")");
      }
    }
    for (String field : List.of("name", "namespace")) {
      JsonNode value = metadata.get(field);
      if (value != null && !value.isNull() && !value.isTextual()) {
        throw new InvalidJobException(
            source, "metadata." + field, "expected a string, got " + EchoedValue.quoted(value));
      }
    }
  }

  private static String where(String source, JsonProcessingException e) {
    JsonLocation location = e.getLocation();
    if (location == null || location.getLineNr() <= 0) {
      return source;
    }
    return source
        + ":"
        + location.getLineNr()
        + (location.getColumnNr() > 0 ? ":" + location.getColumnNr() : "");
  }

  /** ", got 'x'" for a scalar that has the wrong type, empty when the culprit is not a scalar. */
  private static String offendingText(MismatchedInputException e) {
    if (e.getProcessor() instanceof JsonParser parser) {
      JsonToken token = parser.currentToken();
      if (token != null && token.isScalarValue()) {
        try {
          return ", got " + EchoedValue.quoted(parser.getText());
        } catch (IOException ignored) {
          return "";
        }
      }
    }
    return "";
  }

  private static InvalidJobException malformed(String source, String format, Exception e) {
    SyntaxProblem problem = SyntaxProblem.of(e);
    return new InvalidJobException(
        problem.where(source), "", "malformed " + format + ": " + problem.cause());
  }

  private static String badValue(InvalidFormatException e) {
    Class<?> target = e.getTargetType();
    String value = EchoedValue.quoted(e.getValue());
    if (target != null && target.isEnum()) {
      String expected =
          Arrays.stream(target.getEnumConstants())
              .map(Object::toString)
              .collect(Collectors.joining(", "));
      return "unknown value " + value + " (expected " + expected + ")";
    }
    if (target == String.class && e.getValue() instanceof Number number) {
      // a quantity such as 67108864 (or 64Mi) written bare: YAML reads a number, as the API server
      // would, and quoting it is the fix
      return "expected a string, got the number " + number + " (quote it: \"" + number + "\")";
    }
    return "expected " + typeName(target) + ", got " + value;
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
        // a field name may be the user's own (an unknown field): escaped like any echoed value
        path.append(
            EchoedValue.escaped(reference.getFieldName(), EchoedValue.MAX_SHOWN_CHARACTERS));
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
