package dev.gpucomm.e2e.sim;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips (never passes) tests of {@link RequiresNetworkNamespaces} where this machine cannot make
 * network namespaces, saying why.
 */
public final class NetworkNamespacesCondition implements ExecutionCondition {
  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    return switch (PodNetwork.availability()) {
      case PodNetwork.Availability.Available available ->
          ConditionEvaluationResult.enabled("network namespaces can be made here");
      case PodNetwork.Availability.Unavailable unavailable ->
          ConditionEvaluationResult.disabled(
              "skipped: pods need network namespaces of their own, and " + unavailable.reason());
    };
  }
}
