package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Refuses to start with a cluster rank pod template ({@link RankPodDefaults}) that the overlay
 * cannot take: the operator's pod then never becomes ready, so a Helm upgrade that sets one waits
 * and rolls back, where a running operator would fail every new job as InvalidSpec for good.
 */
@ApplicationScoped
public class RankPodDefaultsCheck {
  /** A rank count any template fits, for the checks that do not depend on the job. */
  private static final int ANY_RANKS = 1;

  /** Before the operator's controllers start, which would otherwise judge jobs with it. */
  void onStart(
      @Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent started,
      OperatorConfig config,
      TemplateOverlayValidator validator) {
    RankPodDefaults defaults = RankPodDefaults.of(config);
    List<String> problems = new ArrayList<>();
    defaults
        .template()
        .ifPresent(
            template -> {
              problems.addAll(validator.problems(template, RankPodDefaults.FIELD, ANY_RANKS, -1));
              if (namesGpus(template)) {
                problems.add(
                    "%s.spec.containers[0].resources names %s, which each job's ranksPerPod sets"
                        .formatted(RankPodDefaults.FIELD, PodTemplateFactory.GPU_RESOURCE));
              }
            });
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "the operator's rank pod template cannot be used: " + String.join("; ", problems));
    }
  }

  private static boolean namesGpus(PodTemplateSpec template) {
    if (template.getSpec() == null || template.getSpec().getContainers() == null) {
      return false;
    }
    return template.getSpec().getContainers().stream()
        .map(Container::getResources)
        .filter(Objects::nonNull)
        .flatMap(resources -> Stream.of(resources.getRequests(), resources.getLimits()))
        .filter(Objects::nonNull)
        .anyMatch(amounts -> amounts.containsKey(PodTemplateFactory.GPU_RESOURCE));
  }
}
