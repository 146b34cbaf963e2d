package dev.gpucomm.api.v1alpha1.crd;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What an API server's strict field validation says of an object against a CRD's structural schema:
 * unknown fields, wrong types, values outside an enum or pattern, too many items. The mock API
 * server of the operator's tests validates nothing, so the schema is checked here.
 */
public final class StructuralSchema {
  private final JsonNode schema;

  public StructuralSchema(JsonNode schema) {
    this.schema = schema;
  }

  /** Problems of {@code value}, each "path: problem", empty when the server would accept it. */
  public List<String> problems(JsonNode value, String path) {
    List<String> problems = new ArrayList<>();
    check(schema, value, path, problems);
    return problems;
  }

  private static void check(JsonNode schema, JsonNode value, String path, List<String> problems) {
    if (value.isNull() || schema.path("x-kubernetes-preserve-unknown-fields").asBoolean()) {
      return;
    }
    if (schema.path("x-kubernetes-int-or-string").asBoolean()) {
      if (!value.isTextual() && !value.isIntegralNumber()) {
        problems.add(path + ": must be an integer or a string");
      } else if (value.isTextual()) {
        checkPattern(schema, value, path, problems);
      }
      return;
    }
    String type = schema.path("type").asText();
    switch (type) {
      case "object" -> checkObject(schema, value, path, problems);
      case "array" -> checkArray(schema, value, path, problems);
      case "string" -> checkString(schema, value, path, problems);
      case "integer" -> {
        if (!value.isIntegralNumber()) {
          problems.add(path + ": must be an integer");
        }
      }
      case "number" -> {
        if (!value.isNumber()) {
          problems.add(path + ": must be a number");
        }
      }
      case "boolean" -> {
        if (!value.isBoolean()) {
          problems.add(path + ": must be a boolean");
        }
      }
      default -> {}
    }
  }

  private static void checkObject(
      JsonNode schema, JsonNode value, String path, List<String> problems) {
    if (!value.isObject()) {
      problems.add(path + ": must be an object");
      return;
    }
    JsonNode properties = schema.path("properties");
    JsonNode additional = schema.path("additionalProperties");
    for (JsonNode required : schema.path("required")) {
      if (!value.has(required.asText())) {
        problems.add(path + "." + required.asText() + ": required");
      }
    }
    for (Map.Entry<String, JsonNode> field : value.properties()) {
      String fieldPath = path + "." + field.getKey();
      if (properties.has(field.getKey())) {
        check(properties.get(field.getKey()), field.getValue(), fieldPath, problems);
      } else if (additional.isObject()) {
        check(additional, field.getValue(), fieldPath, problems);
      } else {
        problems.add(fieldPath + ": unknown field");
      }
    }
  }

  private static void checkArray(
      JsonNode schema, JsonNode value, String path, List<String> problems) {
    if (!value.isArray()) {
      problems.add(path + ": must be an array");
      return;
    }
    if (schema.has("maxItems") && value.size() > schema.get("maxItems").asInt()) {
      problems.add(
          "%s: must have at most %d items".formatted(path, schema.get("maxItems").asInt()));
    }
    for (int i = 0; i < value.size(); i++) {
      check(schema.path("items"), value.get(i), path + "[" + i + "]", problems);
    }
  }

  private static void checkString(
      JsonNode schema, JsonNode value, String path, List<String> problems) {
    if (!value.isTextual()) {
      problems.add(path + ": must be a string");
      return;
    }
    List<String> allowed = new ArrayList<>();
    schema.path("enum").forEach(option -> allowed.add(option.asText()));
    if (!allowed.isEmpty() && !allowed.contains(value.asText())) {
      problems.add(
          "%s: unsupported value \"%s\" (supported: %s)"
              .formatted(path, value.asText(), String.join(", ", allowed)));
    }
    checkPattern(schema, value, path, problems);
  }

  private static void checkPattern(
      JsonNode schema, JsonNode value, String path, List<String> problems) {
    if (schema.has("pattern")
        && !Pattern.compile(schema.get("pattern").asText()).matcher(value.asText()).find()) {
      problems.add("%s: must match %s".formatted(path, schema.get("pattern").asText()));
    }
  }
}
