package dev.gpucomm.runtime.report.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.cli.Gpucomm;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report command against an HTTPS API server (Fabric8's mock server with its self-signed
 * certificate), with client certificates in the kubeconfig as clusters issue them: an EC key (SEC
 * 1) or an RSA key (PKCS #1), inline or in files next to the kubeconfig.
 */
class ReportCommandTlsTest {
  @TempDir static Path keys;
  static KubernetesMockServer api;
  static String url;

  @BeforeAll
  static void startHttpsApiServer() {
    Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    api =
        new KubernetesMockServer(
            new Context(Serialization.jsonMapper()),
            new MockWebServer(),
            responses,
            new KubernetesMixedDispatcher(responses),
            true);
    api.init(InetAddress.getLoopbackAddress(), 0);
    url = "https://127.0.0.1:" + api.getPort();
    try (KubernetesClient admin = api.createClient()) {
      admin
          .configMaps()
          .inNamespace("perf")
          .resource(
              new ConfigMapBuilder()
                  .withNewMetadata()
                  .withName("ar-tp8-results")
                  .endMetadata()
                  .withData(Map.of("report.json", "{}", "report.md", "# ar-tp8\n"))
                  .build())
          .create();
    }
  }

  @AfterAll
  static void stopApiServer() {
    api.destroy();
  }

  @BeforeEach
  void noClusterOfTheMachine() {
    System.setProperty(Config.KUBERNETES_KUBECONFIG_FILE, keys.resolve("no-kubeconfig").toString());
    System.setProperty(Config.KUBERNETES_AUTH_TRYSERVICEACCOUNT_SYSTEM_PROPERTY, "false");
  }

  @AfterEach
  void restoreProperties() {
    System.clearProperty(Config.KUBERNETES_KUBECONFIG_FILE);
    System.clearProperty(Config.KUBERNETES_AUTH_TRYSERVICEACCOUNT_SYSTEM_PROPERTY);
  }

  @Test
  void anEcClientKeyAsEksIssuesThemIsUsed() throws Exception {
    Path kubeconfig =
        kubeconfig(
            "insecure-skip-tls-verify: true",
            "client-certificate-data: " + base64Of("ec-client.crt"),
            "client-key-data: " + base64Of("ec-client.key"));

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = run(kubeconfig, out, err);

    assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    assertThat(exit).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("# ar-tp8\n");
  }

  @Test
  void readsCredentialFilesRelativeToTheKubeconfig() throws Exception {
    copyFixture("rsa-client.crt");
    copyFixture("rsa-client.key");
    Path kubeconfig =
        kubeconfig(
            "insecure-skip-tls-verify: true",
            "client-certificate: rsa-client.crt",
            "client-key: rsa-client.key");

    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertThat(run(kubeconfig, new ByteArrayOutputStream(), err))
        .as(err.toString(StandardCharsets.UTF_8))
        .isZero();
  }

  @Test
  void refusesAServerItHasNoReasonToTrust() throws Exception {
    Path kubeconfig =
        kubeconfig(
            "insecure-skip-tls-verify: false",
            "client-certificate-data: " + base64Of("rsa-client.crt"),
            "client-key-data: " + base64Of("rsa-client.key"));

    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = run(kubeconfig, new ByteArrayOutputStream(), err);

    assertThat(exit).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .startsWith("gpucomm report: API server " + url + ": ");
    assertThat(err.toString(StandardCharsets.UTF_8).lines()).hasSize(1);
  }

  private static int run(Path kubeconfig, ByteArrayOutputStream out, ByteArrayOutputStream err) {
    return Gpucomm.execute(
        new String[] {"report", "ar-tp8", "-n", "perf", "--kubeconfig", kubeconfig.toString()},
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        Map.of("HOME", keys.toString()),
        false);
  }

  /** A kubeconfig whose cluster line is the first field given, the user lines the others. */
  private static Path kubeconfig(String clusterTrust, String userCertificate, String userKey)
      throws Exception {
    Path file = Files.createTempFile(keys, "kubeconfig", ".yaml");
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        current-context: kind-gpu
        contexts:
        - name: kind-gpu
          context: {cluster: kind-gpu, user: kind-gpu}
        clusters:
        - name: kind-gpu
          cluster:
            server: %s
            %s
        users:
        - name: kind-gpu
          user:
            %s
            %s
        """
            .formatted(url, clusterTrust, userCertificate, userKey));
    return file;
  }

  private static byte[] fixture(String name) throws IOException {
    try (InputStream in = ReportCommandTlsTest.class.getResourceAsStream("/kubeconfig/" + name)) {
      return in.readAllBytes();
    }
  }

  private static String base64Of(String name) throws IOException {
    return Base64.getEncoder().encodeToString(fixture(name));
  }

  private static void copyFixture(String name) throws IOException {
    Files.write(keys.resolve(name), fixture(name));
  }
}
