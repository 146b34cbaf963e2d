package dev.gpucomm.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;

/**
 * The spec fields that govern a job's lifecycle rather than what it runs: suspend,
 * ttlSecondsAfterFinished, cleanPodPolicy, schedulingTimeoutSeconds and failurePolicy. They may
 * change while the job runs and apply at once; every other field is fixed when the job starts.
 */
final class LifecycleFields {
  private static final List<String> NAMES =
      List.of(
          "suspend",
          "ttlSecondsAfterFinished",
          "cleanPodPolicy",
          "schedulingTimeoutSeconds",
          "failurePolicy");
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private LifecycleFields() {}

  /** Copies the lifecycle fields of {@code from} onto {@code to}. */
  static void copy(CommJobSpec from, CommJobSpec to) {
    to.setSuspend(from.getSuspend());
    to.setTtlSecondsAfterFinished(from.getTtlSecondsAfterFinished());
    to.setCleanPodPolicy(from.getCleanPodPolicy());
    to.setSchedulingTimeoutSeconds(from.getSchedulingTimeoutSeconds());
    to.setFailurePolicy(from.getFailurePolicy());
  }

  /** Whether {@code a} and {@code b} differ in what the job runs, lifecycle fields aside. */
  static boolean runDiffers(CommJobSpec a, CommJobSpec b) {
    return !withoutLifecycle(a).equals(withoutLifecycle(b));
  }

  private static JsonNode withoutLifecycle(CommJobSpec spec) {
    JsonNode json = SERIALIZATION.convertValue(spec, JsonNode.class);
    if (json instanceof ObjectNode object) {
      object.remove(NAMES);
    }
    return json;
  }
}
