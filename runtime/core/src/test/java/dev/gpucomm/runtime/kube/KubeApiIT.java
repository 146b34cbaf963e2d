package dev.gpucomm.runtime.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ConfigMap calls of rank 0 against a mock API server. */
class KubeApiIT {
  private static final String TOKEN = "service-account-token";

  @TempDir Path serviceAccount;
  private MockApiServer server;
  private KubeApi api;

  @BeforeEach
  void startMockApiServer() throws Exception {
    Files.writeString(serviceAccount.resolve("token"), TOKEN + "\n");
    server = new MockApiServer("ml");
    api =
        KubeApi.fromEnvironment(Map.of(KubeApi.OVERRIDE_ENV, server.url()), serviceAccount)
            .orElseThrow();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void rankZeroMergesItsReportIntoTheResultsConfigMap() {
    server.createConfigMap("ar-tp4-results", Map.of("owner", "operator"));

    api.mergeConfigMapData(
        "ml",
        "ar-tp4-results",
        Map.of("report.json", "{\"schemaVersion\":1}", "report.md", "| size |"));

    assertThat(server.configMap("ar-tp4-results"))
        .containsEntry("owner", "operator")
        .containsEntry("report.json", "{\"schemaVersion\":1}")
        .containsEntry("report.md", "| size |");
    assertThat(server.requests())
        .containsExactly("PATCH ar-tp4-results Bearer " + TOKEN + " application/merge-patch+json");
  }

  @Test
  void anApiServerBrieflyUnavailableDoesNotLoseTheReport() {
    server.createConfigMap("ar-tp4-results", Map.of());
    server.failNextPatches(2);

    api.mergeConfigMapData("ml", "ar-tp4-results", Map.of("report.json", "{}"));

    assertThat(server.configMap("ar-tp4-results")).containsEntry("report.json", "{}");
    assertThat(server.requests()).hasSize(3);
  }

  @Test
  void readingAConfigMap() {
    server.createConfigMap("h200-nvlink", Map.of("tuning.json", "{}"));

    assertThat(api.configMapData("ml", "h200-nvlink")).contains(Map.of("tuning.json", "{}"));
    assertThat(api.configMapData("ml", "absent")).isEmpty();
  }

  @Test
  void aMissingResultsConfigMapIsNamed() {
    assertThatThrownBy(() -> api.mergeConfigMapData("ml", "ar-tp4-results", Map.of("a", "b")))
        .isInstanceOf(KubeApiException.class)
        .hasMessage(
            "cannot patch ConfigMap ml/ar-tp4-results: HTTP 404 (not found: the operator creates it"
                + " with the job): configmaps \"ar-tp4-results\" not found");
  }

  @Test
  void aServiceAccountWithoutRightsIsNamed() {
    server.createConfigMap("ar-tp4-results", Map.of());
    server.forbidPatches();

    assertThatThrownBy(() -> api.mergeConfigMapData("ml", "ar-tp4-results", Map.of("a", "b")))
        .isInstanceOf(KubeApiException.class)
        .hasMessage(
            "cannot patch ConfigMap ml/ar-tp4-results: HTTP 403 (the pod's service account may not"
                + " patch it): configmaps \"ar-tp4-results\" is forbidden");
  }

  @Test
  void outsideAClusterThereIsNoApi() {
    assertThat(KubeApi.fromEnvironment(Map.of(), serviceAccount)).isEmpty();
  }
}
