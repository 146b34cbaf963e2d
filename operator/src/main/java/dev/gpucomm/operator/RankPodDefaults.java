package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Optional;

/**
 * The cluster's template for every rank pod (the chart's runtime.podTemplate): what every job on
 * this cluster needs and no CommJob should have to repeat, such as a toleration of the GPU nodes'
 * taint or a priority class. It is merged into each pod before the job's own spec.template, by the
 * same rules: the job's scheduling fields (nodeSelector, tolerations, ...) replace the cluster's,
 * its lists (volumes, env, ...) add to them.
 */
final class RankPodDefaults {
  /** Where the template is set, as problems name it. */
  static final String FIELD = "runtime.podTemplate";

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private final Optional<String> json;
  private final Optional<String> problem;

  private RankPodDefaults(Optional<String> json, Optional<String> problem) {
    this.json = json;
    this.problem = problem;
  }

  /** The operator's template: none when the setting is unset or empty. */
  static RankPodDefaults of(OperatorConfig config) {
    return of(config.rankPodTemplate().filter(text -> !text.isBlank() && !text.equals("{}")));
  }

  static RankPodDefaults of(Optional<String> json) {
    if (json.isEmpty()) {
      return new RankPodDefaults(Optional.empty(), Optional.empty());
    }
    try {
      SERIALIZATION.unmarshal(json.get(), PodTemplateSpec.class);
      return new RankPodDefaults(json, Optional.empty());
    } catch (RuntimeException unreadable) {
      return new RankPodDefaults(
          Optional.empty(),
          Optional.of(
              "%s: the operator's rank pod template is not a pod template: %s"
                  .formatted(
                      FIELD,
                      PodFailureDescriber.lastLine(String.valueOf(unreadable.getMessage())))));
    }
  }

  /**
   * A copy of the template of its own, since merging shares the template's lists and entries with
   * the pod it builds.
   */
  Optional<PodTemplateSpec> template() {
    return json.map(text -> SERIALIZATION.unmarshal(text, PodTemplateSpec.class));
  }

  /** Why the setting is no template: every job fails InvalidSpec naming it. */
  Optional<String> problem() {
    return problem;
  }
}
