package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Reads the Events that node autoscalers write on a namespace's pods ({@link NodeProvisioning}),
 * and keeps them a while (gpucomm.operator.autoscaler-events-kept) for every job of that namespace:
 * the API server keeps no cache of Events, so each list reads the namespace's Events from storage,
 * and the jobs that wait for nodes come in bursts. One list a namespace, of the pods' Events, in
 * pages.
 */
@ApplicationScoped
public class AutoscalerEventReader {
  /** Events a page: a namespace's pods may have many thousands. */
  static final long PAGE = 500;

  private static final Logger LOG = Logger.getLogger(AutoscalerEventReader.class);

  private record Read(Instant at, List<Event> events) {}

  private final Map<String, Read> byNamespace = new ConcurrentHashMap<>();
  private final Set<String> refusedNamespaces = ConcurrentHashMap.newKeySet();
  private final Duration kept;

  @Inject
  public AutoscalerEventReader(OperatorConfig config) {
    this(config.autoscalerEventsKept());
  }

  AutoscalerEventReader(Duration kept) {
    this.kept = kept;
  }

  /**
   * What autoscalers have said of {@code namespace}'s pods. A list the API server refuses (a chart
   * from before the operator read Events grants none) counts as no word, which leaves each pod its
   * scheduling timeout; any other failure is thrown, so that the job is looked at again rather than
   * judged without the word that may be there.
   */
  List<Event> in(KubernetesClient client, String namespace, Instant now) {
    return in(client, namespace, now, Instant.MIN);
  }

  /**
   * {@link #in(KubernetesClient, String, Instant)}, read at {@code notBefore} or later. The jobs of
   * a namespace that ask at once wait for one read (JOSDK reconciles jobs on several threads).
   */
  List<Event> in(KubernetesClient client, String namespace, Instant now, Instant notBefore) {
    byNamespace.values().removeIf(read -> !read.at().plus(kept).isAfter(now));
    return byNamespace
        .compute(
            namespace,
            (name, kept) ->
                kept != null && !kept.at().isBefore(notBefore)
                    ? kept
                    : new Read(now, read(client, name)))
        .events();
  }

  private List<Event> read(KubernetesClient client, String namespace) {
    List<Event> found = new ArrayList<>();
    try {
      String page = null;
      do {
        EventList list =
            client
                .v1()
                .events()
                .inNamespace(namespace)
                .withField("involvedObject.kind", "Pod")
                .list(new ListOptionsBuilder().withLimit(PAGE).withContinue(page).build());
        list.getItems().stream().filter(NodeProvisioning::concerns).forEach(found::add);
        page = list.getMetadata() == null ? null : list.getMetadata().getContinue();
      } while (page != null && !page.isEmpty());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 403 && e.getCode() != 404) {
        throw e;
      }
      // a page refused after others: what came before proves nothing of the pods not yet read
      found.clear();
      if (refusedNamespaces.add(namespace)) {
        LOG.warnf(
            "%s: the API server refuses the pods' Events (%d), so a node autoscaler's scale-up"
                + " does not lengthen the scheduling timeout here: %s",
            namespace, e.getCode(), PodFailureDescriber.lastLine(String.valueOf(e.getMessage())));
      }
    }
    return List.copyOf(found);
  }
}
