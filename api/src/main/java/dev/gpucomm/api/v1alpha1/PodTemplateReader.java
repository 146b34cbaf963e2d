package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DatabindException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import java.io.IOException;

/**
 * Reads spec.template, and reads a template with a value Fabric8 cannot read as an {@link
 * UnreadablePodTemplate} rather than failing the whole CommJob.
 */
final class PodTemplateReader extends JsonDeserializer<PodTemplateSpec> {
  @Override
  public PodTemplateSpec deserialize(JsonParser parser, DeserializationContext context)
      throws IOException {
    JsonNode tree = parser.readValueAsTree();
    if (tree.path(UnreadablePodTemplate.REASON).isTextual()) {
      // a copy of one read before
      return new UnreadablePodTemplate(
          tree.path(UnreadablePodTemplate.FIELD).asText(""),
          tree.get(UnreadablePodTemplate.REASON).asText());
    }
    try {
      return context.readTreeAsValue(tree, PodTemplateSpec.class);
    } catch (DatabindException | IllegalArgumentException e) {
      String field = e instanceof JsonMappingException mapping ? JsonFieldPath.of(mapping) : "";
      return new UnreadablePodTemplate(field, reasonOf(e));
    }
  }

  /** The innermost message's first line. */
  private static String reasonOf(Exception failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage() == null ? root.toString() : root.getMessage();
    return message.lines().findFirst().orElse("").strip().replaceAll("\\.$", "");
  }
}
