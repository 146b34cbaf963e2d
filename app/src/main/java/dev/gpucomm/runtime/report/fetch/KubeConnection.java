package dev.gpucomm.runtime.report.fetch;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * Where a Kubernetes API server is and how to talk to it: its URL, the TLS context that trusts it
 * (and presents a client certificate, if the user has one), the Authorization header, and the
 * namespace to use when none is given.
 */
public record KubeConnection(
    URI server,
    Optional<SSLContext> tls,
    Optional<String> authorization,
    String namespace,
    String source) {

  HttpClient httpClient() {
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NEVER);
    tls.ifPresent(builder::sslContext);
    return builder.build();
  }

  HttpRequest.Builder request(String path) {
    String base = server.toString().replaceAll("/+$", "");
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(30))
            .header("Accept", "application/json");
    authorization.ifPresent(value -> builder.header("Authorization", value));
    return builder;
  }
}
