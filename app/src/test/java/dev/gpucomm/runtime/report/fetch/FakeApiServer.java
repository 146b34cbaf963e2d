package dev.gpucomm.runtime.report.fetch;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;

/** A Kubernetes API server that serves a few objects by path and checks a bearer token. */
final class FakeApiServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final Map<String, Object> objects = new ConcurrentHashMap<>();
  private final Optional<String> token;
  final List<String> requests = new CopyOnWriteArrayList<>();

  private FakeApiServer(HttpServer server, Optional<String> token) {
    this.server = server;
    this.token = token;
    server.createContext("/", this::handle);
    server.start();
  }

  /** A plain-HTTP server that accepts only {@code token}, or anyone when it is empty. */
  static FakeApiServer http(Optional<String> token) throws IOException {
    return new FakeApiServer(
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), token);
  }

  /** An HTTPS server that requires a client certificate its TLS context trusts. */
  static FakeApiServer https(SSLContext tls) throws IOException {
    HttpsServer server =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(
        new HttpsConfigurator(tls) {
          @Override
          public void configure(HttpsParameters parameters) {
            var ssl = getSSLContext().getDefaultSSLParameters();
            ssl.setNeedClientAuth(true);
            parameters.setSSLParameters(ssl);
          }
        });
    return new FakeApiServer(server, Optional.empty());
  }

  String url() {
    String scheme = server instanceof HttpsServer ? "https" : "http";
    return scheme + "://127.0.0.1:" + server.getAddress().getPort();
  }

  void put(String path, Object object) {
    objects.put(path, object);
  }

  void putResults(String namespace, String job, Map<String, String> data) {
    put(
        "/api/v1/namespaces/" + namespace + "/configmaps/" + job + "-results",
        Map.of(
            "apiVersion",
            "v1",
            "kind",
            "ConfigMap",
            "metadata",
            Map.of("name", job + "-results", "namespace", namespace),
            "data",
            data));
  }

  private void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    requests.add(exchange.getRequestMethod() + " " + path);
    String authorization = exchange.getRequestHeaders().getFirst("Authorization");
    if (token.isPresent() && !("Bearer " + token.get()).equals(authorization)) {
      respond(exchange, 401, Map.of("kind", "Status", "message", "Unauthorized"));
      return;
    }
    Object object = objects.get(path);
    if (object == null) {
      respond(exchange, 404, Map.of("kind", "Status", "message", path + " not found"));
    } else {
      respond(exchange, 200, object);
    }
  }

  private static void respond(HttpExchange exchange, int status, Object body) throws IOException {
    byte[] bytes = JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (var out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
