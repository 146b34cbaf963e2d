package dev.gpucomm.operator;

import io.quarkus.test.kubernetes.client.KubernetesServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.function.Consumer;

/**
 * Installs the committed CommJob CRD (the api module's generated file) in the mock API server
 * before the operator starts, as the Helm chart does in a cluster.
 */
public class CommJobCrdSetup implements Consumer<KubernetesServer> {
  static final String CRD_RESOURCE = "/META-INF/fabric8/commjobs.gpucomm.dev-v1.yml";

  @Override
  public void accept(KubernetesServer server) {
    try (InputStream crd = CommJobCrdSetup.class.getResourceAsStream(CRD_RESOURCE)) {
      if (crd == null) {
        throw new IllegalStateException(CRD_RESOURCE + " is not on the classpath");
      }
      server.getClient().apiextensions().v1().customResourceDefinitions().load(crd).create();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
