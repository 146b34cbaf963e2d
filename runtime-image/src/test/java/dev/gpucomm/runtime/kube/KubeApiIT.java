package dev.gpucomm.runtime.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ConfigMap calls of rank 0 against a mock API server that keeps one namespace's ConfigMaps.
 */
class KubeApiIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "service-account-token";

  @TempDir Path serviceAccount;
  private HttpServer server;
  private final Map<String, Map<String, String>> configMaps = new LinkedHashMap<>();
  private final List<String> requests = new ArrayList<>();
  private volatile boolean forbidPatches;
  private KubeApi api;

  @BeforeEach
  void startMockApiServer() throws IOException {
    Files.writeString(serviceAccount.resolve("token"), TOKEN + "\n");
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/api/v1/namespaces/ml/configmaps/", this::handle);
    server.start();
    String url = "http://127.0.0.1:" + server.getAddress().getPort();
    api = KubeApi.fromEnvironment(Map.of(KubeApi.OVERRIDE_ENV, url), serviceAccount).orElseThrow();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private synchronized void handle(HttpExchange exchange) throws IOException {
    String name =
        exchange.getRequestURI().getPath().substring("/api/v1/namespaces/ml/configmaps/".length());
    String method = exchange.getRequestMethod();
    requests.add(
        method
            + " "
            + name
            + " "
            + exchange.getRequestHeaders().getFirst("Authorization")
            + " "
            + exchange.getRequestHeaders().getFirst("Content-Type"));
    Map<String, String> data = configMaps.get(name);
    if (data == null) {
      respond(
          exchange,
          404,
          "{\"kind\":\"Status\",\"message\":\"configmaps \\\"" + name + "\\\" not found\"}");
      return;
    }
    if (method.equals("PATCH")) {
      if (forbidPatches) {
        respond(
            exchange,
            403,
            "{\"kind\":\"Status\",\"message\":\"configmaps \\\"" + name + "\\\" is forbidden\"}");
        return;
      }
      JsonNode patch = JSON.readTree(exchange.getRequestBody());
      patch.path("data").properties().forEach(e -> data.put(e.getKey(), e.getValue().asText()));
    }
    respond(
        exchange,
        200,
        JSON.writeValueAsString(Map.of("metadata", Map.of("name", name), "data", data)));
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  @Test
  void rankZeroMergesItsReportIntoTheResultsConfigMap() {
    configMaps.put("ar-tp4-results", new LinkedHashMap<>(Map.of("owner", "operator")));

    api.mergeConfigMapData(
        "ml",
        "ar-tp4-results",
        Map.of("report.json", "{\"schemaVersion\":1}", "report.md", "| size |"));

    assertThat(configMaps.get("ar-tp4-results"))
        .containsEntry("owner", "operator")
        .containsEntry("report.json", "{\"schemaVersion\":1}")
        .containsEntry("report.md", "| size |");
    assertThat(requests)
        .containsExactly("PATCH ar-tp4-results Bearer " + TOKEN + " application/merge-patch+json");
  }

  @Test
  void readingAConfigMap() {
    configMaps.put("h200-nvlink", new LinkedHashMap<>(Map.of("tuning.json", "{}")));

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
    configMaps.put("ar-tp4-results", new LinkedHashMap<>());
    forbidPatches = true;

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
