package dev.gpucomm.runtime.report.fetch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.api.v1alpha1.ReportRun;
import dev.gpucomm.api.v1alpha1.validation.EchoedValue;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils;
import java.net.ConnectException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Reads a job's results ConfigMap from the API server; when there is no report yet, says why in the
 * words of the CommJob's status (still running, failed and with what reason, or unknown).
 */
final class ResultsFetcher {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Read as a generic object, not as the CommJob class: a cluster may run another version of the
   * operator than this CLI was built with, and only status.phase and status.conditions matter.
   */
  private static final ResourceDefinitionContext COMM_JOBS =
      new ResourceDefinitionContext.Builder()
          .withGroup("gpucomm.dev")
          .withVersion("v1alpha1")
          .withKind("CommJob")
          .withPlural("commjobs")
          .withNamespaced(true)
          .build();

  /**
   * CommJob is gpucomm.dev/v1alpha1 by design; Fabric8's warning about reading an alpha version
   * would be a second line under every "no report yet" message. Held here so that the level stays
   * (java.util.logging keeps loggers only weakly).
   */
  private static final Logger UNSTABLE_VERSION_ALERTS =
      Logger.getLogger(VersionUsageUtils.class.getName());

  static {
    UNSTABLE_VERSION_ALERTS.setLevel(Level.SEVERE);
  }

  private final KubernetesClient client;
  private final String source;
  private final AnswerSizeLimit answerLimit;

  ResultsFetcher(KubernetesClient client, String source, AnswerSizeLimit answerLimit) {
    this.client = client;
    this.source = source;
    this.answerLimit = answerLimit;
  }

  JobResults fetch(String namespace, String job) {
    String name = JobResults.configMapName(job);
    Optional<ConfigMap> configMap =
        get(
            "configmaps " + namespace + "/" + name,
            () -> client.configMaps().inNamespace(namespace).withName(name).get());
    Map<String, String> files = new LinkedHashMap<>();
    configMap.map(ConfigMap::getData).ifPresent(files::putAll);
    if (!files.containsKey(JobResults.REPORT_JSON)) {
      throw new ReportNotFoundException(whyNoReport(namespace, job, configMap.isPresent()));
    }
    Optional<String> reportRun = ReportRun.stamp(configMap.get());
    if (reportRun.isPresent()) {
      checkOfTheJobsRun(namespace, job, configMap.get(), reportRun.get());
    }
    return new JobResults(namespace, job, files);
  }

  /**
   * A report stamped with the run it is of (the restart attempt of the pods whose rank 0 wrote it)
   * is the job's only while the job is at that run: after a restart it is a failed run's. A CommJob
   * that is gone (its ConfigMap not yet collected) leaves the report as it is.
   */
  private void checkOfTheJobsRun(
      String namespace, String job, ConfigMap results, String reportRun) {
    Optional<GenericKubernetesResource> commJob = commJob(namespace, job);
    if (commJob.isEmpty()) {
      return;
    }
    JsonNode status = JSON.valueToTree(commJob.get()).path("status");
    int jobRun = status.path("restarts").asInt(0);
    if (!ReportRun.isOf(results, jobRun)) {
      throw new ReportNotFoundException(
          "CommJob %s has no report of its run %d yet: %s; ConfigMap %s holds the report of run %s"
              .formatted(
                  job,
                  jobRun,
                  describe(status),
                  JobResults.configMapName(job),
                  ReportRun.of(results).isPresent() ? reportRun : EchoedValue.quoted(reportRun)));
    }
  }

  private Optional<GenericKubernetesResource> commJob(String namespace, String job) {
    return get(
        "commjobs " + namespace + "/" + job,
        () ->
            client
                .genericKubernetesResources(COMM_JOBS)
                .inNamespace(namespace)
                .withName(job)
                .get());
  }

  private String whyNoReport(String namespace, String job, boolean configMapExists) {
    Optional<GenericKubernetesResource> commJob = commJob(namespace, job);
    if (commJob.isEmpty()) {
      return "no CommJob "
          + job
          + " in namespace "
          + namespace
          + " (and no ConfigMap "
          + JobResults.configMapName(job)
          + ")";
    }
    JsonNode status = JSON.valueToTree(commJob.get()).path("status");
    StringBuilder why =
        new StringBuilder("CommJob " + job + " has no report yet: " + describe(status));
    if (!configMapExists) {
      why.append(" (ConfigMap ").append(JobResults.configMapName(job)).append(" not found)");
    }
    return why.toString();
  }

  /** "phase Failed, reason Timeout: not finished after 60 s", from a CommJob's status. */
  private static String describe(JsonNode status) {
    StringBuilder description =
        new StringBuilder("phase ").append(status.path("phase").asText("Pending"));
    for (JsonNode condition : status.path("conditions")) {
      if (condition.path("type").asText().equals("Failed")
          && condition.path("status").asText().equals("True")) {
        description.append(", reason ").append(condition.path("reason").asText());
        if (!condition.path("message").asText().isEmpty()) {
          description.append(": ").append(condition.path("message").asText());
        }
      }
    }
    return description.toString();
  }

  /** The object, or empty when the API server says 404 (Fabric8 answers null then). */
  private <T> Optional<T> get(String what, Supplier<T> read) {
    try {
      return Optional.ofNullable(read.get());
    } catch (KubernetesClientException e) {
      if (answerLimit.exceeded()) {
        throw new ApiServerException(
            "get %s: the API server %s answered with more than %d MiB, which no such object holds"
                .formatted(what, server(), answerLimit.maxBytes() >> 20));
      }
      throw failure(e, what);
    }
  }

  private ApiServerException failure(KubernetesClientException e, String what) {
    String server = server();
    String reason =
        e.getStatus() == null || e.getStatus().getMessage() == null
            ? ""
            : e.getStatus().getMessage().lines().findFirst().orElse("");
    return switch (e.getCode()) {
      case 401 ->
          new ApiServerException(
              "the API server " + server + " did not accept the credentials of " + source);
      case 403 ->
          new ApiServerException("forbidden: " + (reason.isEmpty() ? "get " + what : reason));
      case 0, -1 -> unanswered(e, server);
      default ->
          new ApiServerException(
              "get " + what + ": HTTP " + e.getCode() + (reason.isEmpty() ? "" : ": " + reason));
    };
  }

  /** The API server's address, as messages name it. */
  String server() {
    return client.getMasterUrl().toString().replaceAll("/+$", "");
  }

  /** No HTTP answer: refused connections, TLS failures, timeouts, after Fabric8's retries. */
  private ApiServerException unanswered(KubernetesClientException e, String server) {
    Throwable root = e;
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof ConnectException) {
        return new ApiServerException(
            "cannot reach the API server " + server + " (" + source + ")");
      }
      root = cause;
    }
    String message = root.getMessage() == null ? root.toString() : root.getMessage();
    return new ApiServerException(
        "API server " + server + ": " + message.lines().findFirst().orElse(""));
  }

  /** The job has no report (yet); the message says what the cluster knows of it. */
  static final class ReportNotFoundException extends RuntimeException {
    ReportNotFoundException(String message) {
      super(message);
    }
  }

  /** The API server could not be reached or refused the request. */
  static final class ApiServerException extends RuntimeException {
    ApiServerException(String message) {
      super(message);
    }
  }
}
