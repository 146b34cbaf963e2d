package dev.gpucomm.operator;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import java.util.Objects;
import java.util.Optional;

/**
 * A pod of a job that the API server refused for good: as invalid (HTTP 422: requests above limits,
 * a mount of a volume the pod lacks, a label key it cannot take), or by the namespace's Pod
 * Security level (403, "violates PodSecurity": a template asking for the host's network in a
 * baseline namespace), or by a ResourceQuota that needs a value the pod does not set (403, "must
 * specify limits.cpu"). Made from the job's spec, it would be refused again on every retry, unlike
 * a refusal by exceeded quota or by another admission webhook (403), which freed quota or a changed
 * policy can lift. Only pods count: the operator only ever creates them, while a 422 of another
 * object may answer an update, or an admission policy's denial, which is retried.
 */
final class ApiRejection {
  static final int UNPROCESSABLE = 422;

  static final int FORBIDDEN = 403;

  /**
   * How the Pod Security admission's denials read: "pods ... is forbidden: violates PodSecurity".
   */
  private static final String POD_SECURITY = "violates PodSecurity";

  /**
   * How a ResourceQuota refuses a pod that does not say what the quota counts: "failed quota: q:
   * must specify limits.cpu". Freed quota does not lift it; only a template with those values does.
   */
  private static final String QUOTA_REFUSAL = "failed quota";

  private static final String QUOTA_NEEDS_A_VALUE = "must specify";

  private ApiRejection() {}

  /** The API server's message for the first invalid pod in {@code failure}, if any. */
  static Optional<String> invalidPod(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof KubernetesClientException client && isAboutPods(client)) {
        String message =
            client.getStatus() != null && client.getStatus().getMessage() != null
                ? client.getStatus().getMessage()
                : Objects.requireNonNullElse(client.getMessage(), "");
        if (client.getCode() == UNPROCESSABLE
            || (client.getCode() == FORBIDDEN
                && (message.contains(POD_SECURITY)
                    || (message.contains(QUOTA_REFUSAL)
                        && message.contains(QUOTA_NEEDS_A_VALUE))))) {
          return Optional.of(message.lines().findFirst().orElse("").strip());
        }
      }
      if (cause instanceof AggregatedOperatorException aggregated) {
        for (Exception each : aggregated.getAggregatedExceptions().values()) {
          Optional<String> found = invalidPod(each);
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

  static final int CONFLICT = 409;

  /** The reason of a 409 that is a stale write (an update at an old resourceVersion). */
  private static final String STALE_WRITE = "Conflict";

  /**
   * Whether {@code failure} holds a create refused because the name is taken (409 AlreadyExists,
   * not a stale write's 409 Conflict, which the next reconciliation mends by itself). Which object
   * it was is not taken from the answer (servers fill its details differently): the caller looks at
   * the job's own names.
   */
  static boolean nameTaken(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof KubernetesClientException client
          && client.getCode() == CONFLICT
          && (client.getStatus() == null || !STALE_WRITE.equals(client.getStatus().getReason()))) {
        return true;
      }
      if (cause instanceof AggregatedOperatorException aggregated
          && aggregated.getAggregatedExceptions().values().stream()
              .anyMatch(ApiRejection::nameTaken)) {
        return true;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return false;
  }

  private static boolean isAboutPods(KubernetesClientException client) {
    if ("pods".equals(client.getResourcePlural())) {
      return true;
    }
    return client.getStatus() != null
        && client.getStatus().getDetails() != null
        && "pods".equals(client.getStatus().getDetails().getKind());
  }
}
