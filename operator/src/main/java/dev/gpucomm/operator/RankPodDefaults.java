package dev.gpucomm.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
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
 *   <li>volumes, resource claims, image pull secrets, env vars and mounts add up, the job's
 *       replacing the cluster's of the same name (mounts: the same path), the job's in its order;
 *   <li>container resources merge resource by resource: one the job names in its requests or limits
 *       is the job's alone;
 *   <li>each kind of affinity the job sets (node, pod, pod anti-) replaces the cluster's of that
 *       kind; everything else the job sets replaces the cluster's (priorityClassName,
 *       schedulerName, topologySpreadConstraints, the image, hostNetwork).
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
          "claims", "name",
          "imagePullSecrets", "name");

  /** Lists whose entries add up, equal entries once. */
  private static final List<String> UNION_LISTS = List.of("tolerations", "envFrom", "add");

  /**
   * Objects whose every member the job replaces whole: a node affinity of terms from both would say
   * what neither of them said, and a request from one under a limit from the other could ask for
   * more than it may use.
   */
  private static final List<String> MEMBERS_WHOLE = List.of("affinity");

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

  /** Whether the cluster has a template. */
  boolean isSet() {
    return template.isPresent();
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
      } else if (MEMBERS_WHOLE.contains(name) && value.isObject() && existing.isObject()) {
        value
            .fields()
            .forEachRemaining(
                member ->
                    ((ObjectNode) existing).set(member.getKey(), member.getValue().deepCopy()));
      } else if (name.equals("resources") && value.isObject() && existing.isObject()) {
        mergeResources((ObjectNode) existing, value);
      } else if (value.isObject() && existing.isObject()) {
        mergeInto((ObjectNode) existing, value);
      } else if (value.isArray() && value.isEmpty()) {
        // an empty list says nothing, as the overlay reads it
        continue;
      } else {
        base.set(name, value.deepCopy());
      }
    }
  }

  /**
   * {@code base}'s entries that {@code over} has none of the same key of, then {@code over}'s in
   * their order: env vars that refer to one another as $(NAME) keep the order the job gave them.
   */
  private static ArrayNode keyed(ArrayNode base, ArrayNode over, String key) {
    ArrayNode merged = JsonNodeFactory.instance.arrayNode();
    for (JsonNode entry : base) {
      boolean replaced = false;
      for (JsonNode mine : over) {
        replaced |= entry.has(key) && entry.get(key).equals(mine.get(key));
      }
      if (!replaced) {
        merged.add(entry.deepCopy());
      }
    }
    over.forEach(entry -> merged.add(entry.deepCopy()));
    return merged;
  }

  /**
   * A container's resources, resource by resource: a resource the job names in its requests or its
   * limits is the job's alone, so that a request of one side never ends above a limit of the
   * other's; claims add up.
   */
  private static void mergeResources(ObjectNode base, JsonNode over) {
    for (String side : List.of("requests", "limits")) {
      JsonNode mine = over.path(side);
      if (!mine.isObject()) {
        continue;
      }
      for (String other : List.of("requests", "limits")) {
        if (base.get(other) instanceof ObjectNode theirs) {
          mine.fieldNames().forEachRemaining(theirs::remove);
        }
      }
    }
    mergeInto(base, over);
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
