package dev.gpucomm.runtime.kube;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.ReportRun;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rank 0 publishing its report into the results ConfigMap, against Fabric8's mock API server. */
class ResultsConfigMapPublisherIT {
  private static final String TOKEN = "service-account-token";
  private static final String RESULTS_PATH = "/api/v1/namespaces/ml/configmaps/ar-tp4-results";
  private static final Status SLOW_DOWN = MockApiServer.status(429, "TooManyRequests", "slow down");
  private static final Status TRY_AGAIN =
      MockApiServer.status(503, "ServiceUnavailable", "try again");

  @TempDir Path serviceAccount;
  private KubernetesMockServer server;
  private KubernetesClient admin;
  private KubernetesClient rank;

  @BeforeEach
  void startMockApiServer() throws Exception {
    Files.writeString(serviceAccount.resolve("token"), TOKEN + "\n");
    Files.writeString(serviceAccount.resolve("namespace"), "ml");
    server = MockApiServer.start();
    admin = server.createClient();
    rank =
        KubeClients.create(
            RetryPolicy.RESULTS.applyTo(
                KubeClients.overridden(MockApiServer.url(server), serviceAccount)));
  }

  @AfterEach
  void stop() {
    rank.close();
    admin.close();
    server.destroy();
  }

  @Test
  void rankZeroMergesItsReportIntoTheResultsConfigMap() throws Exception {
    givenResultsConfigMap(Map.of("owner", "operator"));
    int before = server.getRequestCount();

    publisher().publish(Map.of("report.json", "{\"schemaVersion\":1}", "report.md", "| size |"));

    assertThat(server.getRequestCount() - before).isEqualTo(1);
    RecordedRequest patch = server.getLastRequest();
    assertThat(resultsData())
        .containsEntry("owner", "operator")
        .containsEntry("report.json", "{\"schemaVersion\":1}")
        .containsEntry("report.md", "| size |");
    assertThat(patch.getMethod()).isEqualTo("PATCH");
    assertThat(patch.getPath()).isEqualTo(RESULTS_PATH);
    assertThat(patch.getHeader("Authorization")).isEqualTo("Bearer " + TOKEN);
    assertThat(patch.getHeader("Content-Type")).startsWith("application/merge-patch+json");
  }

  @Test
  void theReportIsStampedWithTheRunItIsOfInTheSamePatch() throws Exception {
    givenResultsConfigMap(Map.of());
    int before = server.getRequestCount();

    new ResultsConfigMapPublisher(rank, "ml", "ar-tp4", OptionalInt.of(2))
        .publish(Map.of("report.json", "{\"schemaVersion\":1}"));

    assertThat(server.getRequestCount() - before).as("a read, then one patch").isEqualTo(2);
    ConfigMap results = admin.configMaps().inNamespace("ml").withName("ar-tp4-results").get();
    assertThat(results.getMetadata().getAnnotations()).containsEntry(ReportRun.ANNOTATION, "2");
    assertThat(results.getData()).containsKey("report.json");
  }

  @Test
  void aFailedRunPublishingLateNeverOverwritesTheReportOfTheRunThatReplacedIt() {
    givenResultsConfigMap(Map.of("report.json", "{\"run\":3}"), "3");
    int before = server.getRequestCount();

    assertThatThrownBy(
            () ->
                new ResultsConfigMapPublisher(rank, "ml", "ar-tp4", OptionalInt.of(2))
                    .publish(Map.of("report.json", "{\"run\":2}")))
        .isInstanceOf(KubeApiException.class)
        .hasMessage(
            "not publishing to ConfigMap ml/ar-tp4-results: it holds the report of run 3 of the"
                + " job, which replaced this run (2)");
    assertThat(server.getRequestCount() - before).as("the read alone").isEqualTo(1);
    assertThat(resultsData()).containsEntry("report.json", "{\"run\":3}");
  }

  @Test
  void aRunPublishesOverAnEarlierRunsReport() {
    givenResultsConfigMap(Map.of("report.json", "{\"run\":0}", "latency.svg", "<svg/>"), "0");

    new ResultsConfigMapPublisher(rank, "ml", "ar-tp4", OptionalInt.of(1))
        .publish(Map.of("report.json", "{\"run\":1}"));

    ConfigMap results = admin.configMaps().inNamespace("ml").withName("ar-tp4-results").get();
    assertThat(results.getData()).containsEntry("report.json", "{\"run\":1}");
    // the patch sets the key to null, which removes it (the mock API server keeps it as null)
    assertThat(results.getData().get("latency.svg"))
        .as("the earlier run's plot, which this run did not draw, is gone with its report")
        .isNull();
    assertThat(results.getMetadata().getAnnotations()).containsEntry(ReportRun.ANNOTATION, "1");
  }

  @Test
  void aRunPublishingTwiceKeepsWhatItPublishedFirst() {
    givenResultsConfigMap(Map.of("report.json", "{}", "latency.svg", "<svg/>"), "1");

    new ResultsConfigMapPublisher(rank, "ml", "ar-tp4", OptionalInt.of(1))
        .publish(Map.of("report.md", "| size |"));

    assertThat(resultsData()).containsOnlyKeys("report.json", "latency.svg", "report.md");
  }

  @Test
  void aPatchFromAReadThatIsNoLongerCurrentIsRefusedAndTheReportReadAgain() {
    givenResultsConfigMap(Map.of());
    ConfigMap asFirstRead = admin.configMaps().inNamespace("ml").withName("ar-tp4-results").get();
    // the operator edits the ConfigMap after the rank's read, before its patch
    admin
        .configMaps()
        .inNamespace("ml")
        .withName("ar-tp4-results")
        .edit(c -> new ConfigMapBuilder(c).addToData("edited", "x").build());
    server.expect().get().withPath(RESULTS_PATH).andReturn(200, asFirstRead).once();
    int before = server.getRequestCount();

    stampedPublisher().publish(Map.of("report.json", "{}"));

    assertThat(server.getRequestCount() - before)
        .as("stale read, patch refused by the API server, read again, patch")
        .isEqualTo(4);
    assertThat(resultsData()).containsEntry("report.json", "{}").containsEntry("edited", "x");
  }

  @Test
  void aStampedPublishNamesAMissingResultsConfigMapAtOnce() {
    int before = server.getRequestCount();

    assertThatThrownBy(() -> stampedPublisher().publish(Map.of("a", "b")))
        .isInstanceOf(KubeApiException.class)
        .hasMessage(
            "cannot get ConfigMap ml/ar-tp4-results: HTTP 404 (not found: the operator creates it"
                + " with the job)");
    assertThat(server.getRequestCount() - before).isEqualTo(1);
  }

  @Test
  void aStampedPublishWhoseServiceAccountMayNotReadIsNamedAtOnce() {
    givenResultsConfigMap(Map.of());
    server
        .expect()
        .get()
        .withPath(RESULTS_PATH)
        .andReturn(
            403,
            MockApiServer.status(403, "Forbidden", "configmaps \"ar-tp4-results\" is forbidden"))
        .always();
    int before = server.getRequestCount();

    assertThatThrownBy(() -> stampedPublisher().publish(Map.of("a", "b")))
        .isInstanceOf(KubeApiException.class)
        .hasMessage(
            "cannot get ConfigMap ml/ar-tp4-results: HTTP 403 (the pod's service account may not"
                + " get it): configmaps \"ar-tp4-results\" is forbidden");
    assertThat(server.getRequestCount() - before).isEqualTo(1);
  }

  @Test
  void aStampedPublishOutlastsABrieflyOverloadedApiServer() {
    givenResultsConfigMap(Map.of());
    server.expect().get().withPath(RESULTS_PATH).andReturn(429, SLOW_DOWN).once();
    server.expect().patch().withPath(RESULTS_PATH).andReturn(503, TRY_AGAIN).once();
    int before = server.getRequestCount();

    stampedPublisher().publish(Map.of("report.json", "{}"));

    assertThat(server.getRequestCount() - before).isEqualTo(4);
    assertThat(resultsData()).containsEntry("report.json", "{}");
  }

  @Test
  void theReportIsPatchedOnlyAtTheVersionItWasCheckedAgainstAndReadAgainAfterAConflict() {
    givenResultsConfigMap(Map.of());
    String readAt =
        admin
            .configMaps()
            .inNamespace("ml")
            .withName("ar-tp4-results")
            .get()
            .getMetadata()
            .getResourceVersion();
    List<String> refusedPatches = new ArrayList<>();
    server
        .expect()
        .patch()
        .withPath(RESULTS_PATH)
        .andReply(
            409,
            request -> {
              refusedPatches.add(request.getBody().readUtf8());
              return MockApiServer.status(409, "Conflict", "the object has been modified");
            })
        .once();
    int before = server.getRequestCount();

    new ResultsConfigMapPublisher(rank, "ml", "ar-tp4", OptionalInt.of(0))
        .publish(Map.of("report.json", "{}"));

    assertThat(server.getRequestCount() - before)
        .as("read, refused patch, read again, patch")
        .isEqualTo(4);
    assertThat(refusedPatches)
        .singleElement(as(InstanceOfAssertFactories.STRING))
        .contains("\"resourceVersion\":\"" + readAt + "\"");
    assertThat(resultsData()).containsEntry("report.json", "{}");
  }

  @Test
  void aResultsConfigMapThatKeepsChangingEndsThePublishWithTheConflictNamed() {
    givenResultsConfigMap(Map.of());
    server
        .expect()
        .patch()
        .withPath(RESULTS_PATH)
        .andReturn(409, MockApiServer.status(409, "Conflict", "the object has been modified"))
        .always();
    int before = server.getRequestCount();

    assertThatThrownBy(
            () ->
                new ResultsConfigMapPublisher(rank, "ml", "ar-tp4", OptionalInt.of(0))
                    .publish(Map.of("report.json", "{}")))
        .isInstanceOf(KubeApiException.class)
        .hasMessage(
            "cannot patch ConfigMap ml/ar-tp4-results: HTTP 409: the object has been modified");
    assertThat(server.getRequestCount() - before)
        .isEqualTo(2 * ResultsConfigMapPublisher.CONFLICT_TRIES);
  }

  @Test
  void anApiServerBrieflyOverloadedOrUnavailableDoesNotLoseTheReport() {
    givenResultsConfigMap(Map.of());
    server.expect().patch().withPath(RESULTS_PATH).andReturn(429, SLOW_DOWN).once();
    server.expect().patch().withPath(RESULTS_PATH).andReturn(503, TRY_AGAIN).once();
    int before = server.getRequestCount();

    publisher().publish(Map.of("report.json", "{}"));

    assertThat(server.getRequestCount() - before).isEqualTo(3);
    assertThat(resultsData()).containsEntry("report.json", "{}");
  }

  @Test
  void aMissingResultsConfigMapIsNamedAtOnce() {
    int before = server.getRequestCount();

    assertThatThrownBy(() -> publisher().publish(Map.of("a", "b")))
        .isInstanceOf(KubeApiException.class)
        .hasMessageStartingWith(
            "cannot patch ConfigMap ml/ar-tp4-results: HTTP 404 (not found: the operator creates"
                + " it with the job)")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    assertThat(server.getRequestCount() - before).isEqualTo(1);
  }

  @Test
  void aServiceAccountWithoutRightsIsNamedAtOnce() {
    givenResultsConfigMap(Map.of());
    server
        .expect()
        .patch()
        .withPath(RESULTS_PATH)
        .andReturn(
            403,
            MockApiServer.status(403, "Forbidden", "configmaps \"ar-tp4-results\" is forbidden"))
        .always();
    int before = server.getRequestCount();

    assertThatThrownBy(() -> publisher().publish(Map.of("a", "b")))
        .isInstanceOf(KubeApiException.class)
        .hasMessage(
            "cannot patch ConfigMap ml/ar-tp4-results: HTTP 403 (the pod's service account may not"
                + " patch it): configmaps \"ar-tp4-results\" is forbidden");
    assertThat(server.getRequestCount() - before).isEqualTo(1);
  }

  @Test
  void anApiServerThatStaysUnreachableIsNamed() throws Exception {
    String closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = "http://127.0.0.1:" + socket.getLocalPort();
    }
    try (KubernetesClient unreachable =
        KubeClients.create(
            new RetryPolicy(1, Duration.ofMillis(10))
                .applyTo(KubeClients.overridden(closedPort, serviceAccount)))) {

      assertThatThrownBy(
              () ->
                  new ResultsConfigMapPublisher(unreachable, "ml", "ar-tp4", OptionalInt.empty())
                      .publish(Map.of()))
          .isInstanceOf(KubeApiException.class)
          .hasMessageStartingWith(
              "cannot patch ConfigMap ml/ar-tp4-results: API server " + closedPort)
          .hasMessageContaining("unreachable");
    }
  }

  @Test
  void readsATuningTableConfigMap() {
    admin
        .configMaps()
        .inNamespace("ml")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("h200-nvlink")
                .endMetadata()
                .withData(Map.of("tuning.json", "{}"))
                .build())
        .create();

    ConfigMapReader reader = new ConfigMapReader(rank, "ml");

    assertThat(reader.data("h200-nvlink")).contains(Map.of("tuning.json", "{}"));
    assertThat(reader.data("absent")).isEmpty();
  }

  @Test
  void aRankUsesGpucommKubeApiAndOutsideAClusterHasNone() {
    assertThat(KubeClients.forRank(Map.of(), RetryPolicy.RESULTS)).isEmpty();
    assertThat(
            KubeClients.forRank(
                Map.of(KubeClients.OVERRIDE_ENV, MockApiServer.url(server)), RetryPolicy.RESULTS))
        .hasValueSatisfying(
            config -> {
              assertThat(config.getMasterUrl()).startsWith(MockApiServer.url(server));
              assertThat(config.getRequestRetryBackoffLimit()).isEqualTo(5);
              assertThat(config.getRequestRetryBackoffInterval()).isEqualTo(500);
            });
  }

  @Test
  void aPlainHttpApiServerIsAskedInHttp11WithoutAnH2cUpgradeOffer() throws Exception {
    givenResultsConfigMap(Map.of("report.md", "µs × 2 — ≤ 1\n".repeat(2_000)));
    server.takeRequest(); // the admin's create

    ConfigMapReader reader = new ConfigMapReader(rank, "ml");

    assertThat(reader.data("ar-tp4-results")).hasValueSatisfying(d -> assertThat(d).hasSize(1));
    RecordedRequest read = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(read.getHttpVersion()).isEqualTo("HTTP/1.1");
    assertThat(read.getHeader("Upgrade")).isNull();
  }

  /** As a pod started by hand publishes: no run to stamp. */
  private ResultsConfigMapPublisher publisher() {
    return new ResultsConfigMapPublisher(rank, "ml", "ar-tp4", OptionalInt.empty());
  }

  /** As the operator's pods publish: stamped with their run. */
  private ResultsConfigMapPublisher stampedPublisher() {
    return new ResultsConfigMapPublisher(rank, "ml", "ar-tp4", OptionalInt.of(0));
  }

  private void givenResultsConfigMap(Map<String, String> data) {
    givenResultsConfigMap(data, null);
  }

  /** {@code run}: the restart attempt the ConfigMap is stamped with, or null for none. */
  private void givenResultsConfigMap(Map<String, String> data, String run) {
    admin
        .configMaps()
        .inNamespace("ml")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("ar-tp4-results")
                .withAnnotations(run == null ? Map.of() : Map.of(ReportRun.ANNOTATION, run))
                .endMetadata()
                .withData(data)
                .build())
        .create();
  }

  private Map<String, String> resultsData() {
    return admin.configMaps().inNamespace("ml").withName("ar-tp4-results").get().getData();
  }
}
