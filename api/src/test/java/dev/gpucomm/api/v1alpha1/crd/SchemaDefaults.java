package dev.gpucomm.api.v1alpha1.crd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A CRD schema's defaults, filled in as the API server does before it validates an object: on the
 * request's object and on the stored object it reads back, so that rules see defaulted fields on
 * both sides of an update.
 */
public final class SchemaDefaults {
  private final JsonNode schema;

  public SchemaDefaults(JsonNode schema) {
    this.schema = schema;
  }

  /** A copy of {@code value} with every default of the schema filled in; {@code value} is kept. */
  public JsonNode appliedTo(JsonNode value) {
    JsonNode copy = value.deepCopy();
    apply(schema, copy);
    return copy;
  }

  private static void apply(JsonNode schema, JsonNode value) {
    if (value instanceof ObjectNode object) {
      JsonNode properties = schema.path("properties");
      properties
          .properties()
          .forEach(
              property -> {
                JsonNode propertySchema = property.getValue();
                JsonNode current = object.get(property.getKey());
                // The server drops a null it may not store, then defaults the field as if absent.
                if (current != null
                    && current.isNull()
                    && !propertySchema.path("nullable").asBoolean()) {
                  object.remove(property.getKey());
                  current = null;
                }
                if (current == null && propertySchema.has("default")) {
                  object.set(property.getKey(), propertySchema.get("default").deepCopy());
                }
              });
      object
          .properties()
          .forEach(
              field -> {
                JsonNode fieldSchema =
                    properties.has(field.getKey())
                        ? properties.get(field.getKey())
                        : schema.path("additionalProperties");
                if (fieldSchema.isObject()) {
                  apply(fieldSchema, field.getValue());
                }
              });
    } else if (value instanceof ArrayNode array) {
      array.forEach(item -> apply(schema.path("items"), item));
    }
  }
}
