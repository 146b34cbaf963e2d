package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.operator.CommJobEventRecorder.JobEvent;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which status changes become Events: one per condition transition, of any condition type. */
class CommJobEventRecorderTest {

  @Test
  void eventsNameTheOperatorsPodAsTheirReportingInstance() {
    String podName = "team-a-gpucomm-operator-with-a-long-release-name-7d9c5b8f6d-x2k4q";
    assertThat(
            CommJobEventRecorder.instance(
                Map.of("GPUCOMM_POD_NAME", podName, "HOSTNAME", podName.substring(0, 63))))
        .as("the name whole, not the kubelet's cut hostname")
        .isEqualTo(podName);
    assertThat(CommJobEventRecorder.instance(Map.of("HOSTNAME", "gpucomm-operator-7d9c-x2k4q")))
        .isEqualTo("gpucomm-operator-7d9c-x2k4q");
    assertThat(CommJobEventRecorder.instance(Map.of()))
        .as("outside a pod")
        .isEqualTo("gpucomm-operator");
  }

  @Test
  void conditionsThatAppearFalseOrUnknownAreWhereEveryJobStartsAndTellNothing() {
    CommJobStatus after =
        status(
            null,
            condition("Ready", "False", "PodsPending", "0 of 2 pods running, 2 pending"),
            condition("Failed", "False", "NotFinished", "the job has not finished"),
            condition("Regressed", "Unknown", "AwaitingReport", "no report to compare yet"));

    assertThat(CommJobEventRecorder.transitions(new CommJobStatus(), after)).isEmpty();
  }

  @Test
  void theStartOfThePodsAndEachChangedConditionAreOneEventEach() {
    CommJobStatus before =
        status(null, condition("Ready", "False", "PodsPending", "0 of 2 pods running, 2 pending"));
    CommJobStatus after =
        status(
            "2026-01-01T00:00:00Z",
            condition("Ready", "True", "PodsRunning", "2 of 2 pods running"),
            condition("Failed", "False", "NotFinished", "the job has not finished"));

    assertThat(CommJobEventRecorder.transitions(before, after))
        .containsExactly(
            new JobEvent("PodsCreated", "Normal", "created the job's pods"),
            new JobEvent("PodsRunning", "Normal", "Ready=True: 2 of 2 pods running"));
  }

  @Test
  void aConditionAddedLaterGetsItsEventsAndBadNewsIsAWarning() {
    // Degraded is set by outlier detection; the recorder knows nothing else of it
    CommJobStatus before = status(null, condition("Degraded", "Unknown", "AwaitingReport", "-"));
    CommJobStatus after =
        status(null, condition("Degraded", "True", "SlowNode", "rank 3 on node-b is an outlier"));

    assertThat(CommJobEventRecorder.transitions(before, after))
        .containsExactly(
            new JobEvent("SlowNode", "Warning", "Degraded=True: rank 3 on node-b is an outlier"));
  }

  @Test
  void aRestartIsOneWarningNamedRestartingWhateverItsKindOfFailure() {
    CommJobStatus before =
        status(null, condition("Ready", "True", "PodsRunning", "2 of 2 pods running"));
    CommJobStatus after =
        status(
            null,
            condition("Ready", "False", "Restarting", "the failed run's pods are going"),
            condition("Restarting", "True", "RankFailed", "restart 1 of 2 after RankFailed: x"));

    assertThat(CommJobEventRecorder.transitions(before, after))
        .containsExactly(
            new JobEvent(
                "Restarting", "Warning", "Restarting=True: restart 1 of 2 after RankFailed: x"));
  }

  @Test
  void anUnchangedStatusTellsNothing() {
    CommJobStatus same =
        status("2026-01-01T00:00:00Z", condition("Failed", "True", "Timeout", "not finished"));

    assertThat(CommJobEventRecorder.transitions(same, same)).isEmpty();
  }

  private static CommJobStatus status(String startTime, Condition... conditions) {
    CommJobStatus status = new CommJobStatus();
    status.setStartTime(startTime);
    status.setConditions(List.of(conditions));
    return status;
  }

  private static Condition condition(String type, String status, String reason, String message) {
    return new ConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .build();
  }
}
