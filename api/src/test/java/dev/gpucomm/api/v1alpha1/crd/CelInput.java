package dev.gpucomm.api.v1alpha1.crd;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JSON value as a rule's {@code self} sees it under the CRD schema: an integer field as CEL's
 * int, a number field as double even when written without a fraction, an object as a map from field
 * name to value, an array as a list.
 */
final class CelInput {
  private CelInput() {}

  static Object of(JsonNode schema, JsonNode value) {
    if (value.isObject()) {
      Map<String, Object> fields = new LinkedHashMap<>();
      value
          .properties()
          .forEach(
              field ->
                  fields.put(
                      field.getKey(), of(fieldSchema(schema, field.getKey()), field.getValue())));
      return fields;
    }
    if (value.isArray()) {
      List<Object> items = new ArrayList<>();
      value.forEach(item -> items.add(of(schema.path("items"), item)));
      return items;
    }
    if (value.isNumber()) {
      return "number".equals(schema.path("type").asText()) || value.isFloatingPointNumber()
          ? (Object) value.asDouble()
          : (Object) value.asLong();
    }
    if (value.isBoolean()) {
      return value.asBoolean();
    }
    if (value.isTextual()) {
      return value.asText();
    }
    // SchemaDefaults drops the nulls of fields that are not nullable; the CRD declares none
    // nullable.
    throw new IllegalArgumentException("a null value reached CEL: " + value);
  }

  private static JsonNode fieldSchema(JsonNode schema, String name) {
    JsonNode property = schema.path("properties").path(name);
    return property.isMissingNode() ? schema.path("additionalProperties") : property;
  }
}
