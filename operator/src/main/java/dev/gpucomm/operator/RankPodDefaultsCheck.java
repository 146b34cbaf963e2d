package dev.gpucomm.operator;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;

/**
 * Refuses to start with a cluster rank pod template ({@link RankPodDefaults}) that the overlay
 * cannot take: the operator's pod then never becomes ready, so a Helm upgrade that sets one waits
 * and rolls back, where a running operator would fail every new job as InvalidSpec for good.
 */
@ApplicationScoped
public class RankPodDefaultsCheck {
  /** A rank count any template fits, for the checks that do not depend on the job. */
  private static final int ANY_RANKS = 1;

  void onStart(
      @Observes StartupEvent started, OperatorConfig config, TemplateOverlayValidator validator) {
    RankPodDefaults defaults = RankPodDefaults.of(config);
    List<String> problems =
        defaults
            .template()
            .map(template -> validator.problems(template, RankPodDefaults.FIELD, ANY_RANKS, -1))
            .orElse(List.of());
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "the operator's rank pod template cannot be used: " + String.join("; ", problems));
    }
  }
}
