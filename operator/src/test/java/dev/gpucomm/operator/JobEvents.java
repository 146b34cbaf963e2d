package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.awaitility.Awaitility;

/** The Events recorded on a CommJob, as {@code kubectl describe commjob} lists them. */
final class JobEvents {
  private final KubernetesClient client;
  private final String namespace;

  JobEvents(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  /** The job's Events, oldest first. */
  List<Event> of(String job) {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> e.getInvolvedObject() != null)
        .filter(e -> "CommJob".equals(e.getInvolvedObject().getKind()))
        .filter(e -> job.equals(e.getInvolvedObject().getName()))
        .sorted(Comparator.comparing(e -> e.getMetadata().getName()))
        .toList();
  }

  /** Waits until the job has an Event with {@code reason}, and returns it. */
  Event await(String job, String reason) {
    return Awaitility.await()
        .atMost(TestCluster.PATIENCE)
        .until(
            () -> of(job).stream().filter(e -> reason.equals(e.getReason())).findFirst(),
            Optional::isPresent)
        .orElseThrow();
  }

  /** The reasons of the job's Events, oldest first. */
  List<String> reasons(String job) {
    return of(job).stream().map(Event::getReason).toList();
  }
}
