package dev.gpucomm.runtime.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Kubernetes API server that knows ConfigMaps of one namespace, enough for what ranks do: GET and
 * JSON merge-PATCH. Optionally refuses patches, as an API server does for a service account without
 * rights.
 */
public final class MockApiServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String namespace;
  private final HttpServer server;
  private final Map<String, Map<String, String>> configMaps = new LinkedHashMap<>();
  private final List<String> requests = new ArrayList<>();
  private volatile boolean forbidPatches;
  private int unavailablePatches;

  public MockApiServer(String namespace) throws IOException {
    this.namespace = namespace;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/api/v1/namespaces/" + namespace + "/configmaps/", this::handle);
    server.start();
  }

  /** The base URL to put in GPUCOMM_KUBE_API. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  public synchronized void createConfigMap(String name, Map<String, String> data) {
    configMaps.put(name, new LinkedHashMap<>(data));
  }

  public synchronized Map<String, String> configMap(String name) {
    return Map.copyOf(configMaps.get(name));
  }

  /** "METHOD name Authorization Content-Type" of every request, in order. */
  public synchronized List<String> requests() {
    return List.copyOf(requests);
  }

  public void forbidPatches() {
    forbidPatches = true;
  }

  /** The next {@code count} patches are answered 503, as an API server under load may. */
  public synchronized void failNextPatches(int count) {
    unavailablePatches = count;
  }

  private synchronized void handle(HttpExchange exchange) throws IOException {
    String prefix = "/api/v1/namespaces/" + namespace + "/configmaps/";
    String name = exchange.getRequestURI().getPath().substring(prefix.length());
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
      respond(exchange, 404, status("configmaps \"" + name + "\" not found"));
      return;
    }
    if (method.equals("PATCH")) {
      if (forbidPatches) {
        respond(exchange, 403, status("configmaps \"" + name + "\" is forbidden"));
        return;
      }
      if (unavailablePatches > 0) {
        unavailablePatches--;
        respond(exchange, 503, status("the server is currently unable to handle the request"));
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

  private static String status(String message) throws IOException {
    return JSON.writeValueAsString(Map.of("kind", "Status", "message", message));
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
