package dev.gpucomm.operator;

import static dev.gpucomm.operator.AutoscalerEvents.CLUSTER_AUTOSCALER;
import static dev.gpucomm.operator.AutoscalerEvents.NO_SCALE_UP;
import static dev.gpucomm.operator.AutoscalerEvents.SCALE_UP;
import static dev.gpucomm.operator.AutoscalerEvents.legacy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventListBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** How the operator reads what node autoscalers said of a namespace's pods. */
class AutoscalerEventReaderTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:10:00Z");
  private static final String EVENTS = "/api/v1/namespaces/ml/events";
  private static final String FIRST_PAGE =
      EVENTS + "?fieldSelector=involvedObject.kind%3DPod&limit=500";

  private final Pod waiting =
      new PodBuilder()
          .withNewMetadata()
          .withName("sweep-1")
          .withNamespace("ml")
          .withUid("uid-1")
          .endMetadata()
          .build();
  private final AutoscalerEventReader reader = new AutoscalerEventReader(Duration.ofSeconds(30));
  private StandaloneApiServer cluster;

  @BeforeEach
  void startApiServer() {
    cluster = StandaloneApiServer.start();
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Test
  void theNamespacesPodEventsAreReadInPagesAndOnlyTheAutoscalersWordsKept() {
    Event promise = legacy("TriggeredScaleUp", CLUSTER_AUTOSCALER, waiting, NOW, NOW, SCALE_UP);
    Event pulled = legacy("Pulled", "kubelet", waiting, NOW, NOW, "Successfully pulled image");
    Event decline = legacy("NotTriggerScaleUp", CLUSTER_AUTOSCALER, waiting, NOW, NOW, NO_SCALE_UP);
    Event schedulers = legacy("FailedScheduling", "default-scheduler", waiting, NOW, NOW, "");
    serve(FIRST_PAGE, "page-2", promise, pulled);
    serve(
        EVENTS + "?continue=page-2&fieldSelector=involvedObject.kind%3DPod&limit=500",
        null,
        decline,
        schedulers);

    assertThat(reader.in(cluster.client, "ml", NOW))
        .extracting(Event::getReason)
        .containsExactly("TriggeredScaleUp", "NotTriggerScaleUp");
  }

  @Test
  void theJobsOfANamespaceShareOneReadForHalfAMinute() throws Exception {
    serve(FIRST_PAGE, null, legacy("Nominated", "karpenter", waiting, NOW, NOW, ""));
    serve(FIRST_PAGE, null);

    reader.in(cluster.client, "ml", NOW);
    int requests = cluster.server.getRequestCount();
    assertThat(reader.in(cluster.client, "ml", NOW.plusSeconds(29))).hasSize(1);
    assertThat(cluster.server.getRequestCount()).isEqualTo(requests);

    assertThat(reader.in(cluster.client, "ml", NOW.plusSeconds(31))).isEmpty();
    assertThat(cluster.server.getRequestCount()).isEqualTo(requests + 1);
  }

  @Test
  void jobsOfANamespaceThatAskAtOnceWaitForOneRead() throws Exception {
    serve(FIRST_PAGE, null, legacy("Nominated", "karpenter", waiting, NOW, NOW, ""));
    int before = cluster.server.getRequestCount();
    ExecutorService reconcilers = Executors.newFixedThreadPool(8);
    try {
      List<Future<List<Event>>> reads = new ArrayList<>();
      for (int job = 0; job < 8; job++) {
        reads.add(reconcilers.submit(() -> reader.in(cluster.client, "ml", NOW)));
      }
      for (Future<List<Event>> read : reads) {
        assertThat(read.get(30, TimeUnit.SECONDS)).hasSize(1);
      }
    } finally {
      reconcilers.shutdownNow();
    }

    assertThat(cluster.server.getRequestCount()).isEqualTo(before + 1);
  }

  @Test
  void aReadKeptFromBeforeAPodsDeadlineIsReadAgain() {
    serve(FIRST_PAGE, null);
    serve(FIRST_PAGE, null, legacy("Nominated", "karpenter", waiting, NOW, NOW, ""));

    reader.in(cluster.client, "ml", NOW);

    assertThat(reader.in(cluster.client, "ml", NOW.plusSeconds(10), NOW.plusSeconds(5))).hasSize(1);
  }

  @Test
  void aPageRefusedAfterOthersLeavesNoWordAtAll() {
    serve(
        FIRST_PAGE,
        "page-2",
        legacy("TriggeredScaleUp", CLUSTER_AUTOSCALER, waiting, NOW, NOW, SCALE_UP));
    cluster
        .server
        .expect()
        .get()
        .withPath(EVENTS + "?continue=page-2&fieldSelector=involvedObject.kind%3DPod&limit=500")
        .andReturn(403, status(403))
        .once();

    assertThat(reader.in(cluster.client, "ml", NOW)).isEmpty();
  }

  @Test
  void eventsTheApiServerRefusesAreNoWordAndAnyOtherFailureIsThrown() {
    cluster.server.expect().get().withPath(FIRST_PAGE).andReturn(403, status(403)).once();
    cluster.server.expect().get().withPath(FIRST_PAGE).andReturn(503, status(503)).always();

    // an older chart grants no list: each pod keeps its scheduling timeout
    assertThat(reader.in(cluster.client, "ml", NOW)).isEmpty();
    // a server in trouble for a moment: the job is looked at again, not judged without the word
    try (KubernetesClient unretried =
        cluster.server.createClient(
            builder -> builder.editOrNewConfig().withRequestRetryBackoffLimit(0).endConfig())) {
      assertThatThrownBy(() -> reader.in(unretried, "ml", NOW.plusSeconds(60)))
          .isInstanceOf(KubernetesClientException.class);
    }
  }

  private void serve(String path, String next, Event... events) {
    cluster
        .server
        .expect()
        .get()
        .withPath(path)
        .andReturn(
            200,
            new EventListBuilder()
                .withNewMetadata()
                .withContinue(next)
                .endMetadata()
                .withItems(List.of(events))
                .build())
        .once();
  }

  private static String status(int code) {
    return "{\"kind\":\"Status\",\"code\":%d,\"message\":\"events is refused\"}".formatted(code);
  }
}
