package dev.gpucomm.runtime.kube;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;

/**
 * Fabric8's mock API server over plain http on the loopback address: objects are stored (CRUD
 * mode), and answers set up with {@code expect()} come first, for the failures a test needs.
 */
public final class MockApiServer {
  private MockApiServer() {}

  public static KubernetesMockServer start() {
    Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    KubernetesMockServer server =
        new KubernetesMockServer(
            new Context(Serialization.jsonMapper()),
            new MockWebServer(),
            responses,
            new KubernetesMixedDispatcher(responses),
            false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    return server;
  }

  /** The base URL to put in GPUCOMM_KUBE_API. */
  public static String url(KubernetesMockServer server) {
    return "http://" + InetAddress.getLoopbackAddress().getHostAddress() + ":" + server.getPort();
  }

  /** A Status object as the API server sends with an error. */
  public static Status status(int code, String reason, String message) {
    return new StatusBuilder()
        .withStatus("Failure")
        .withCode(code)
        .withReason(reason)
        .withMessage(message)
        .build();
  }
}
