package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.jboss.logging.Logger;

/**
 * Records Kubernetes Events on a CommJob so that {@code kubectl describe commjob} tells its story:
 * one Event when its pods are created and one per condition transition (a condition that changes
 * status or reason, or appears True), whatever the condition: conditions added later get their
 * Events without further work. An Event that cannot be written is logged and dropped; it never
 * fails a reconciliation.
 */
final class CommJobEventRecorder {
  static final String COMPONENT = "gpucomm-operator";

  static final String NORMAL = "Normal";
  static final String WARNING = "Warning";

  /**
   * Condition types that are bad news when True (Degraded comes with outlier detection; Restarting
   * means a run failed).
   */
  private static final Set<String> WARNING_WHEN_TRUE =
      Set.of(Reasons.FAILED, Reasons.REGRESSED, "Degraded", Reasons.RESTARTING);

  /** The operator process that records, as Events name it (see {@link #instance}). */
  private static final String INSTANCE = instance(System.getenv());

  /** Kubernetes keeps at most this much of an Event's message. */
  private static final int MAX_MESSAGE = 1024;

  private static final Logger LOG = Logger.getLogger(CommJobEventRecorder.class);

  private CommJobEventRecorder() {}

  /**
   * Which operator records: its pod's name, so that the Events of several replicas (a leader's and
   * its successor's) can be told apart; the component's name outside a pod. The chart passes the
   * name whole (GPUCOMM_POD_NAME); HOSTNAME, the kubelet's, is cut to 63 characters, which a
   * Deployment's long pod names exceed at their distinguishing end.
   */
  static String instance(Map<String, String> env) {
    for (String variable : List.of("GPUCOMM_POD_NAME", "HOSTNAME")) {
      String name = env.get(variable);
      if (name != null && !name.isBlank()) {
        return name.strip();
      }
    }
    return COMPONENT;
  }

  /** An Event to record: its reason (CamelCase), type (Normal or Warning) and message. */
  record JobEvent(String reason, String type, String message) {}

  /** The Events that the change from {@code before} to {@code after} tells. */
  static List<JobEvent> transitions(CommJobStatus before, CommJobStatus after) {
    CommJobStatus previous = Objects.requireNonNullElseGet(before, CommJobStatus::new);
    List<JobEvent> events = new ArrayList<>();
    if (previous.getStartTime() == null && after.getStartTime() != null) {
      events.add(new JobEvent(Reasons.PODS_CREATED, NORMAL, "created the job's pods"));
    }
    if (after.getConditions() == null) {
      return events;
    }
    for (Condition condition : after.getConditions()) {
      Optional<Condition> earlier =
          ConditionList.find(previous.getConditions(), condition.getType());
      boolean changed =
          earlier.isPresent()
              ? !Objects.equals(earlier.get().getStatus(), condition.getStatus())
                  || !Objects.equals(earlier.get().getReason(), condition.getReason())
              // a condition that appears False or Unknown is where every job starts, not news
              : ConditionList.TRUE.equals(condition.getStatus());
      if (changed && condition.getReason() != null && !toldByRestarting(condition)) {
        events.add(
            new JobEvent(
                eventReason(condition),
                warns(condition) ? WARNING : NORMAL,
                "%s=%s: %s"
                    .formatted(
                        condition.getType(),
                        condition.getStatus(),
                        Objects.requireNonNullElse(condition.getMessage(), ""))));
      }
    }
    return events;
  }

  /**
   * A restart's Event is Restarting, whatever kind of failure it restarts: {@code --field-selector
   * reason=Restarting} lists restarts, and a RankFailed Event stays a final failure. Ready's move
   * to Restarting is the same news, told once.
   */
  private static String eventReason(Condition condition) {
    return Reasons.RESTARTING.equals(condition.getType())
            && ConditionList.TRUE.equals(condition.getStatus())
        ? Reasons.RESTARTING
        : condition.getReason();
  }

  private static boolean toldByRestarting(Condition condition) {
    return Reasons.READY.equals(condition.getType())
        && Reasons.RESTARTING.equals(condition.getReason());
  }

  private static boolean warns(Condition condition) {
    return WARNING_WHEN_TRUE.contains(condition.getType())
        && ConditionList.TRUE.equals(condition.getStatus());
  }

  /** Records the Events of the change from {@code before} to {@code after} on {@code job}. */
  static void recordTransitions(
      KubernetesClient client, CommJob job, CommJobStatus before, CommJobStatus after) {
    transitions(before, after).forEach(event -> record(client, job, event));
  }

  /** Records {@code event} on {@code job}. */
  static void record(KubernetesClient client, CommJob job, JobEvent event) {
    String now = Instant.now().toString();
    String message =
        event.message().length() > MAX_MESSAGE
            ? event.message().substring(0, MAX_MESSAGE - 3) + "..."
            : event.message();
    Event created =
        new EventBuilder()
            .withNewMetadata()
            .withName(
                "%s.%x%04x"
                    .formatted(
                        job.getMetadata().getName(),
                        System.currentTimeMillis(),
                        ThreadLocalRandom.current().nextInt(0x10000)))
            .withNamespace(job.getMetadata().getNamespace())
            .endMetadata()
            .withInvolvedObject(
                new ObjectReferenceBuilder()
                    .withApiVersion(CommJob.API_VERSION)
                    .withKind(job.getKind())
                    .withName(job.getMetadata().getName())
                    .withNamespace(job.getMetadata().getNamespace())
                    .withUid(job.getMetadata().getUid())
                    .build())
            .withReason(event.reason())
            .withType(event.type())
            .withMessage(message)
            .withCount(1)
            .withFirstTimestamp(now)
            .withLastTimestamp(now)
            .withNewSource()
            .withComponent(COMPONENT)
            .endSource()
            .withReportingComponent(CommJob.GROUP + "/" + COMPONENT)
            .withReportingInstance(INSTANCE)
            .build();
    try {
      client.v1().events().inNamespace(job.getMetadata().getNamespace()).resource(created).create();
    } catch (KubernetesClientException e) {
      LOG.warnf(
          "%s/%s: event %s not recorded: %s",
          job.getMetadata().getNamespace(),
          job.getMetadata().getName(),
          event.reason(),
          PodFailureDescriber.lastLine(String.valueOf(e.getMessage())));
    }
  }
}
