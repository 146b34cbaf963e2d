package dev.gpucomm.operator;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import java.util.Optional;

/**
 * An object of a job that the API server refused as invalid (HTTP 422: a pod whose requests exceed
 * its limits, a mount of a volume the pod lacks, a label key it cannot take). Made from the job's
 * spec, it would be refused again on every retry, unlike a refusal by quota or admission (403),
 * which freed quota or a changed policy can lift.
 */
final class ApiRejection {
  static final int UNPROCESSABLE = 422;

  private ApiRejection() {}

  /** The API server's message for the first invalid object in {@code failure}, if any. */
  static Optional<String> invalidObject(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof KubernetesClientException client && client.getCode() == UNPROCESSABLE) {
        String message =
            client.getStatus() != null && client.getStatus().getMessage() != null
                ? client.getStatus().getMessage()
                : client.getMessage();
        return Optional.of(message.lines().findFirst().orElse("").strip());
      }
      if (cause instanceof AggregatedOperatorException aggregated) {
        for (Exception each : aggregated.getAggregatedExceptions().values()) {
          Optional<String> found = invalidObject(each);
          if (found.isPresent()) {
            return found;
          }
        }
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return Optional.empty();
  }
}
