package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

/** Which refusals of a pod are for good, and which freed quota or a changed policy can lift. */
class ApiRejectionTest {
  @Test
  void aQuotaThatNeedsAValueThePodDoesNotSetRefusesForGood() {
    String quota =
        "pods \"job-0\" is forbidden: failed quota: compute: must specify limits.cpu for: gpucomm";

    assertThat(ApiRejection.invalidPod(forbidden(quota))).contains(quota);
  }

  @Test
  void aWebhookThatAsksForSomethingIsWaitedOutLikeExceededQuota() {
    // a policy may be changed while the job waits; only the quota's wording is for good
    assertThat(
            ApiRejection.invalidPod(
                forbidden(
                    "admission webhook \"validate.kyverno.svc\" denied the request: pods must"
                        + " specify a team label")))
        .isEmpty();
    assertThat(
            ApiRejection.invalidPod(
                forbidden("pods \"job-0\" is forbidden: exceeded quota: gpus, requested: 1")))
        .isEmpty();
  }

  @Test
  void aNameTakenIsAnAlreadyExistsNotAStaleWrite() {
    assertThat(
            ApiRejection.nameTaken(
                conflict("AlreadyExists", "configmaps \"job-spec\" already exists")))
        .isTrue();
    assertThat(
            ApiRejection.nameTaken(
                conflict(
                    "Conflict",
                    "Operation cannot be fulfilled on pods \"job-0\": the object has been"
                        + " modified; please apply your changes to the latest version")))
        .as("a write at an old version is mended by the next reconciliation")
        .isFalse();
  }

  private static KubernetesClientException conflict(String reason, String message) {
    Status status =
        new StatusBuilder()
            .withCode(ApiRejection.CONFLICT)
            .withReason(reason)
            .withMessage(message)
            .build();
    return new KubernetesClientException(status);
  }

  private static KubernetesClientException forbidden(String message) {
    Status status =
        new StatusBuilder()
            .withCode(ApiRejection.FORBIDDEN)
            .withReason("Forbidden")
            .withMessage(message)
            .withNewDetails()
            .withKind("pods")
            .endDetails()
            .build();
    return new KubernetesClientException(status);
  }
}
