package dev.gpucomm.runtime.report.fetch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a job's results ConfigMap from the API server; when there is no report yet, says why in the
 * words of the CommJob's status (still running, failed and with what reason, or unknown).
 */
public final class ResultsFetcher {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubeConnection connection;
  private final HttpClient http;

  public ResultsFetcher(KubeConnection connection) {
    this.connection = connection;
    this.http = connection.httpClient();
  }

  public JobResults fetch(String namespace, String job) {
    String path =
        "/api/v1/namespaces/"
            + segment(namespace)
            + "/configmaps/"
            + segment(JobResults.configMapName(job));
    Optional<JsonNode> configMap = get(path);
    Map<String, String> files = new LinkedHashMap<>();
    configMap.ifPresent(
        cm ->
            cm.path("data")
                .properties()
                .forEach(e -> files.put(e.getKey(), e.getValue().asText())));
    if (!files.containsKey(JobResults.REPORT_JSON)) {
      throw new ReportNotFoundException(whyNoReport(namespace, job, configMap.isPresent()));
    }
    return new JobResults(namespace, job, files);
  }

  private String whyNoReport(String namespace, String job, boolean configMapExists) {
    Optional<JsonNode> commJob =
        get(
            "/apis/gpucomm.dev/v1alpha1/namespaces/"
                + segment(namespace)
                + "/commjobs/"
                + segment(job));
    if (commJob.isEmpty()) {
      return "no CommJob "
          + job
          + " in namespace "
          + namespace
          + " (and no ConfigMap "
          + JobResults.configMapName(job)
          + ")";
    }
    JsonNode status = commJob.get().path("status");
    String phase = status.path("phase").asText("Pending");
    StringBuilder why = new StringBuilder("CommJob " + job + " has no report yet: phase " + phase);
    for (JsonNode condition : status.path("conditions")) {
      if (condition.path("type").asText().equals("Failed")
          && condition.path("status").asText().equals("True")) {
        why.append(", reason ").append(condition.path("reason").asText());
        if (!condition.path("message").asText().isEmpty()) {
          why.append(": ").append(condition.path("message").asText());
        }
      }
    }
    if (!configMapExists) {
      why.append(" (ConfigMap ").append(JobResults.configMapName(job)).append(" not found)");
    }
    return why.toString();
  }

  /** The object at that path, or empty when the API server says 404. */
  private Optional<JsonNode> get(String path) {
    HttpResponse<String> response;
    try {
      response =
          http.send(connection.request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
    } catch (ConnectException e) {
      throw new ApiServerException(
          "cannot reach the API server " + connection.server() + " (" + connection.source() + ")");
    } catch (IOException e) {
      throw new ApiServerException(
          "API server "
              + connection.server()
              + ": "
              + (e.getMessage() == null ? e.toString() : e.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiServerException("interrupted while talking to " + connection.server());
    }
    return switch (response.statusCode()) {
      case 200 -> Optional.of(parse(response.body(), path));
      case 404 -> Optional.empty();
      case 401 ->
          throw new ApiServerException(
              "the API server "
                  + connection.server()
                  + " did not accept the credentials of "
                  + connection.source());
      case 403 ->
          throw new ApiServerException(
              "forbidden: " + message(response.body()).orElse("GET " + path));
      default ->
          throw new ApiServerException(
              "GET "
                  + path
                  + ": HTTP "
                  + response.statusCode()
                  + message(response.body()).map(m -> ": " + m).orElse(""));
    };
  }

  private static JsonNode parse(String body, String path) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new ApiServerException(
          "GET " + path + ": the API server answered something that is not JSON");
    }
  }

  private static Optional<String> message(String body) {
    try {
      return Optional.ofNullable(JSON.readTree(body).path("message").asText(null));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static String segment(String name) {
    return URLEncoder.encode(name, StandardCharsets.UTF_8);
  }

  /** The job has no report (yet); the message says what the cluster knows of it. */
  public static final class ReportNotFoundException extends RuntimeException {
    ReportNotFoundException(String message) {
      super(message);
    }
  }

  /** The API server could not be reached or refused the request. */
  public static final class ApiServerException extends RuntimeException {
    ApiServerException(String message) {
      super(message);
    }
  }
}
