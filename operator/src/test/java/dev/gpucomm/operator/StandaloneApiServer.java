package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReviewBuilder;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;

/**
 * Fabric8's mock API server in CRUD mode, outside any Quarkus application, with the CommJob CRD
 * installed: the cluster for tests that run the operator as a process of its own.
 */
final class StandaloneApiServer implements AutoCloseable {
  final KubernetesMockServer server;
  final NamespacedKubernetesClient client;

  private StandaloneApiServer(KubernetesMockServer server) {
    this.server = server;
    this.client = server.createClient();
  }

  static StandaloneApiServer start() {
    Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    KubernetesMockServer server =
        new KubernetesMockServer(
            new Context(Serialization.jsonMapper()),
            new MockWebServer(),
            responses,
            new KubernetesMixedDispatcher(responses),
            false);
    server.init();
    // JOSDK checks its Lease permissions before electing a leader; the mock cannot review
    // rules, so it answers as a cluster with the chart's leader-election Role would
    server
        .expect()
        .post()
        .withPath("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews")
        .andReturn(
            201,
            new SelfSubjectRulesReviewBuilder()
                .withNewStatus()
                .addNewResourceRule()
                .withApiGroups("coordination.k8s.io")
                .withResources("leases")
                .withVerbs("get", "create", "update", "patch")
                .endResourceRule()
                .withIncomplete(false)
                .endStatus()
                .build())
        .always();
    StandaloneApiServer apiServer = new StandaloneApiServer(server);
    try (InputStream crd =
        StandaloneApiServer.class.getResourceAsStream(CommJobCrdSetup.CRD_RESOURCE)) {
      apiServer.client.apiextensions().v1().customResourceDefinitions().load(crd).create();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return apiServer;
  }

  String url() {
    return client.getConfiguration().getMasterUrl();
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
