package dev.gpucomm.runtime.kube;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The few Kubernetes API calls a rank makes (read and merge-patch a ConfigMap), on java.net.http
 * with the pod's service account: the in-cluster address from KUBERNETES_SERVICE_HOST/PORT, the
 * token and CA from /var/run/secrets/kubernetes.io/serviceaccount. GPUCOMM_KUBE_API overrides the
 * address (plain http allowed, for tests against a mock API server).
 */
public final class KubeApi {
  public static final Path SERVICE_ACCOUNT =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount");
  public static final String OVERRIDE_ENV = "GPUCOMM_KUBE_API";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final URI base;
  private final HttpClient http;
  private final Path tokenFile;

  KubeApi(URI base, HttpClient http, Path tokenFile) {
    this.base = base;
    this.http = http;
    this.tokenFile = tokenFile;
  }

  /**
   * The API of the cluster this process runs in, or of GPUCOMM_KUBE_API; empty outside a cluster.
   */
  public static Optional<KubeApi> fromEnvironment(Map<String, String> env) {
    return fromEnvironment(env, SERVICE_ACCOUNT);
  }

  static Optional<KubeApi> fromEnvironment(Map<String, String> env, Path serviceAccount) {
    Path token = serviceAccount.resolve("token");
    String override = env.get(OVERRIDE_ENV);
    if (override != null && !override.isBlank()) {
      URI uri =
          URI.create(
              override.endsWith("/") ? override.substring(0, override.length() - 1) : override);
      HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(TIMEOUT);
      if ("https".equals(uri.getScheme()) && Files.exists(serviceAccount.resolve("ca.crt"))) {
        client.sslContext(trusting(serviceAccount.resolve("ca.crt")));
      }
      return Optional.of(new KubeApi(uri, client.build(), token));
    }
    String host = env.get("KUBERNETES_SERVICE_HOST");
    String port = env.getOrDefault("KUBERNETES_SERVICE_PORT", "443");
    if (host == null || host.isBlank()) {
      return Optional.empty();
    }
    String authority = host.contains(":") ? "[" + host + "]" : host;
    HttpClient client =
        HttpClient.newBuilder()
            .connectTimeout(TIMEOUT)
            .sslContext(trusting(serviceAccount.resolve("ca.crt")))
            .build();
    return Optional.of(new KubeApi(URI.create("https://" + authority + ":" + port), client, token));
  }

  /** The data of ConfigMap {@code name}; empty when it does not exist. */
  public Optional<Map<String, String>> configMapData(String namespace, String name) {
    HttpResponse<String> response =
        send(request(namespace, name).GET().build(), "read", namespace, name);
    if (response.statusCode() == 404) {
      return Optional.empty();
    }
    expectOk(response, "read", namespace, name);
    try {
      JsonNode data = JSON.readTree(response.body()).path("data");
      Map<String, String> values = new LinkedHashMap<>();
      data.properties().forEach(e -> values.put(e.getKey(), e.getValue().asText()));
      return Optional.of(values);
    } catch (JsonProcessingException e) {
      throw new KubeApiException(
          "ConfigMap " + namespace + "/" + name + ": the API server answered with unreadable JSON",
          e);
    }
  }

  /**
   * Sets {@code data} keys of an existing ConfigMap (a JSON merge patch: other keys stay).
   *
   * @throws KubeApiException naming the ConfigMap when it does not exist or may not be patched
   */
  public void mergeConfigMapData(String namespace, String name, Map<String, String> data) {
    ObjectNode patch = JSON.createObjectNode();
    ObjectNode values = patch.putObject("data");
    data.forEach(values::put);
    // This is how a finished job's results leave the pod: an API server that is briefly
    // unreachable or overloaded (429, 5xx) must not lose hours of measurements, so try again.
    for (int attempt = 1; ; attempt++) {
      HttpRequest request =
          request(namespace, name)
              .header("Content-Type", "application/merge-patch+json")
              .method("PATCH", HttpRequest.BodyPublishers.ofString(patch.toString()))
              .build();
      boolean last = attempt == PATCH_ATTEMPTS;
      HttpResponse<String> response = null;
      try {
        response = send(request, "patch", namespace, name);
      } catch (KubeApiException unreachable) {
        if (last || Thread.currentThread().isInterrupted()) {
          throw unreachable;
        }
      }
      if (response != null && (last || !isTransient(response.statusCode()))) {
        expectOk(response, "patch", namespace, name); // an answer that retrying cannot change
        return;
      }
      pause(PATCH_BACKOFF.multipliedBy(1L << (attempt - 1)));
    }
  }

  /** Patches tried before giving up: waits of 0.5, 1, 2, 4 and 8 s between them. */
  static final int PATCH_ATTEMPTS = 6;

  static final Duration PATCH_BACKOFF = Duration.ofMillis(500);

  private static boolean isTransient(int status) {
    return status == 429 || status >= 500;
  }

  private static void pause(Duration wait) {
    try {
      Thread.sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubeApiException("interrupted while waiting to call the API server again", e);
    }
  }

  private HttpRequest.Builder request(String namespace, String name) {
    URI uri =
        URI.create(
            base
                + "/api/v1/namespaces/"
                + URLEncoder.encode(namespace, StandardCharsets.UTF_8)
                + "/configmaps/"
                + URLEncoder.encode(name, StandardCharsets.UTF_8));
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(uri).timeout(TIMEOUT).header("Accept", "application/json");
    token().ifPresent(token -> builder.header("Authorization", "Bearer " + token));
    return builder;
  }

  /** Read per request: projected service account tokens are rotated while the pod runs. */
  private Optional<String> token() {
    try {
      return Files.exists(tokenFile)
          ? Optional.of(Files.readString(tokenFile).strip())
          : Optional.empty();
    } catch (IOException e) {
      throw new KubeApiException("cannot read the service account token " + tokenFile, e);
    }
  }

  private HttpResponse<String> send(
      HttpRequest request, String verb, String namespace, String name) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new KubeApiException(
          "cannot "
              + verb
              + " ConfigMap "
              + namespace
              + "/"
              + name
              + ": API server "
              + base
              + " unreachable ("
              + e.getMessage()
              + ")",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubeApiException("interrupted while calling the API server", e);
    }
  }

  private static void expectOk(
      HttpResponse<String> response, String verb, String namespace, String name) {
    int status = response.statusCode();
    if (status >= 200 && status < 300) {
      return;
    }
    String reason = "";
    try {
      reason = JSON.readTree(response.body()).path("message").asText("");
    } catch (JsonProcessingException ignored) {
      // Not a Status object; the status code says enough.
    }
    String hint =
        switch (status) {
          case 401 -> " (the service account token was rejected)";
          case 403 -> " (the pod's service account may not " + verb + " it)";
          case 404 -> " (not found: the operator creates it with the job)";
          default -> "";
        };
    throw new KubeApiException(
        "cannot "
            + verb
            + " ConfigMap "
            + namespace
            + "/"
            + name
            + ": HTTP "
            + status
            + hint
            + (reason.isBlank() ? "" : ": " + reason.lines().findFirst().orElse("")),
        status);
  }

  private static SSLContext trusting(Path caFile) {
    try (InputStream in = Files.newInputStream(caFile)) {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      int index = 0;
      for (Certificate certificate :
          CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        trust.setCertificateEntry("ca-" + index++, certificate);
      }
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(trust);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, factory.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new KubeApiException("cannot load the cluster CA " + caFile + ": " + e.getMessage(), e);
    }
  }
}
