package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * Kubernetes condition conventions: a condition's lastTransitionTime moves only when its status
 * (True, False, Unknown) changes, not when its reason or message does.
 */
final class ConditionList {
  static final String TRUE = "True";
  static final String FALSE = "False";
  static final String UNKNOWN = "Unknown";

  private ConditionList() {}

  static Optional<Condition> find(List<Condition> conditions, String type) {
    return conditions == null
        ? Optional.empty()
        : conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  /** The condition {@code type} as it should be now, given the previous list. */
  static Condition next(
      List<Condition> previous,
      String type,
      String status,
      String reason,
      String message,
      long observedGeneration,
      Instant now) {
    String transition =
        find(previous, type)
            .filter(c -> status.equals(c.getStatus()) && c.getLastTransitionTime() != null)
            .map(Condition::getLastTransitionTime)
            .orElseGet(() -> rfc3339(now));
    return new ConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .withObservedGeneration(observedGeneration)
        .withLastTransitionTime(transition)
        .build();
  }

  static String rfc3339(Instant instant) {
    return instant.truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
