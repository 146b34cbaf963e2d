package dev.gpucomm.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The cluster's template for every rank pod (the chart's runtime.podTemplate): what every job on
 * this cluster needs and no CommJob should have to repeat, such as a toleration of the GPU nodes'
 * taint or a priority class. A job's own spec.template is laid over it before the pod is built, and
 * only the result is checked and merged into the pod:
 *
 * <ul>
 *   <li>tolerations add up, and the nodeSelector and labels merge key by key, the job's value
 *       winning, so that a queue such as Kueue writing its flavor's placement into the job's
 *       template keeps the cluster's toleration of the GPU taint;
 *   <li>volumes, resource claims, env vars and mounts add up, the job's replacing the cluster's of
 *       the same name (mounts: the same path); container resources merge key by key;
 *   <li>everything else the job sets replaces the cluster's whole (affinity, priorityClassName,
 *       schedulerName, topologySpreadConstraints, imagePullSecrets, the image).
 * </ul>
 *
 * <p>The setting holds the template's JSON base64-encoded: neither the kubelet's $(VAR) expansion
 * of the operator's env nor the configuration's ${...} expansion may touch what the template says.
 */
final class RankPodDefaults {
  /** Where the template is set, as problems name it. */
  static final String FIELD = "runtime.podTemplate";

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** Lists whose entries add up, each keyed by what makes an entry the same one. */
  private static final Map<String, String> KEYED_LISTS =
      Map.of(
          "volumes", "name",
          "resourceClaims", "name",
          "env", "name",
          "volumeMounts", "mountPath",
          "claims", "name");

  /** Lists whose entries add up, equal entries once. */
  private static final List<String> UNION_LISTS = List.of("tolerations", "envFrom", "add");

  /** Objects the job replaces whole: a merged affinity would say what neither of them said. */
  private static final List<String> WHOLE_OBJECTS = List.of("affinity");

  private final Optional<ObjectNode> template;

  private RankPodDefaults(Optional<ObjectNode> template) {
    this.template = template;
  }

  /**
   * The operator's template: none when the setting is unset or empty; an {@link
   * IllegalArgumentException} naming the setting when it is no pod template.
   */
  static RankPodDefaults of(OperatorConfig config) {
    return of(config.rankPodTemplate());
  }

  static RankPodDefaults of(Optional<String> base64Json) {
    if (base64Json.isEmpty() || base64Json.get().isBlank()) {
      return new RankPodDefaults(Optional.empty());
    }
    JsonNode tree;
    try {
      String json =
          new String(Base64.getDecoder().decode(base64Json.get().strip()), StandardCharsets.UTF_8);
      tree = SERIALIZATION.unmarshal(json, JsonNode.class);
      SERIALIZATION.convertValue(tree, PodTemplateSpec.class);
    } catch (RuntimeException unreadable) {
      throw new IllegalArgumentException(
          "%s (gpucomm.operator.rank-pod-template) is not a base64-encoded pod template: %s"
              .formatted(
                  FIELD, PodFailureDescriber.lastLine(String.valueOf(unreadable.getMessage()))));
    }
    if (!(tree instanceof ObjectNode object)) {
      throw new IllegalArgumentException(
          "%s (gpucomm.operator.rank-pod-template) is not a pod template: %s"
              .formatted(FIELD, tree));
    }
    return new RankPodDefaults(object.isEmpty() ? Optional.empty() : Optional.of(object));
  }

  /** The cluster's template on its own, for the checks that need no job. */
  Optional<PodTemplateSpec> template() {
    return template.map(tree -> SERIALIZATION.convertValue(tree, PodTemplateSpec.class));
  }

  /** {@code jobTemplate} (may be null) laid over the cluster's template; null when both are. */
  PodTemplateSpec under(PodTemplateSpec jobTemplate) {
    if (template.isEmpty()) {
      return jobTemplate;
    }
    ObjectNode merged = template.get().deepCopy();
    if (jobTemplate != null) {
      mergeInto(merged, SERIALIZATION.convertValue(jobTemplate, JsonNode.class));
    }
    return SERIALIZATION.convertValue(merged, PodTemplateSpec.class);
  }

  private static void mergeInto(ObjectNode base, JsonNode over) {
    for (Iterator<Map.Entry<String, JsonNode>> fields = over.fields(); fields.hasNext(); ) {
      Map.Entry<String, JsonNode> field = fields.next();
      String name = field.getKey();
      JsonNode value = field.getValue();
      JsonNode existing = base.get(name);
      if (value.isNull()) {
        continue;
      }
      if (existing == null || existing.isNull()) {
        base.set(name, value.deepCopy());
      } else if (name.equals("containers") && value.isArray() && existing.isArray()) {
        // one container each (the validator refuses more): the job's is laid over the cluster's
        if (!value.isEmpty()) {
          if (existing.isEmpty()) {
            base.set(name, value.deepCopy());
          } else {
            mergeInto((ObjectNode) existing.get(0), value.get(0));
          }
        }
      } else if (KEYED_LISTS.containsKey(name) && value.isArray() && existing.isArray()) {
        base.set(name, keyed((ArrayNode) existing, (ArrayNode) value, KEYED_LISTS.get(name)));
      } else if (UNION_LISTS.contains(name) && value.isArray() && existing.isArray()) {
        ArrayNode union = ((ArrayNode) existing).deepCopy();
        value.forEach(
            entry -> {
              if (!contains(union, entry)) {
                union.add(entry.deepCopy());
              }
            });
        base.set(name, union);
      } else if (!WHOLE_OBJECTS.contains(name) && value.isObject() && existing.isObject()) {
        mergeInto((ObjectNode) existing, value);
      } else if (value.isArray() && value.isEmpty()) {
        // an empty list says nothing, as the overlay reads it
        continue;
      } else {
        base.set(name, value.deepCopy());
      }
    }
  }

  /** {@code base}'s entries with {@code over}'s replacing those of the same key, then the rest. */
  private static ArrayNode keyed(ArrayNode base, ArrayNode over, String key) {
    ArrayNode merged = base.deepCopy();
    for (JsonNode entry : over) {
      int same = -1;
      for (int i = 0; i < merged.size() && entry.has(key); i++) {
        if (entry.get(key).equals(merged.get(i).get(key))) {
          same = i;
        }
      }
      if (same >= 0) {
        merged.set(same, entry.deepCopy());
      } else {
        merged.add(entry.deepCopy());
      }
    }
    return merged;
  }

  private static boolean contains(ArrayNode list, JsonNode entry) {
    for (JsonNode present : list) {
      if (present.equals(entry)) {
        return true;
      }
    }
    return false;
  }
}
