package dev.gpucomm.runtime.report.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.cli.Gpucomm;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report command against an HTTPS API server that requires a client certificate, with the
 * credentials in a kubeconfig as kind writes them (CA data, client certificate, PKCS#1 RSA key).
 */
class ReportCommandTlsTest {
  private static final char[] PASSWORD = "changeit".toCharArray();

  @TempDir static Path keys;
  static FakeApiServer api;
  static String serverCertificatePem;
  static String clientCertificatePem;
  static String clientKeyPkcs1Pem;

  @BeforeAll
  static void startHttpsApiServer() throws Exception {
    KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
    ec.initialize(256);
    KeyPair serverKeys = ec.generateKeyPair();
    KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
    rsa.initialize(2048);
    KeyPair clientKeys = rsa.generateKeyPair();
    X509Certificate serverCertificate = SelfSignedCertificate.create(serverKeys, "kube-apiserver");
    X509Certificate clientCertificate = SelfSignedCertificate.create(clientKeys, "ci-bot");
    serverCertificatePem = pem("CERTIFICATE", serverCertificate.getEncoded());
    clientCertificatePem = pem("CERTIFICATE", clientCertificate.getEncoded());
    clientKeyPkcs1Pem = pem("RSA PRIVATE KEY", pkcs1Of(clientKeys.getPrivate().getEncoded()));

    KeyStore serverStore = KeyStore.getInstance("PKCS12");
    serverStore.load(null, null);
    serverStore.setKeyEntry(
        "server", serverKeys.getPrivate(), PASSWORD, new X509Certificate[] {serverCertificate});
    KeyStore trustedClients = KeyStore.getInstance("PKCS12");
    trustedClients.load(null, null);
    trustedClients.setCertificateEntry("ci-bot", clientCertificate);
    KeyManagerFactory keyManagers =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(serverStore, PASSWORD);
    TrustManagerFactory trustManagers =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trustedClients);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), new SecureRandom());
    api = FakeApiServer.https(tls);
    api.putResults("perf", "ar-tp8", Map.of("report.json", "{}", "report.md", "# ar-tp8\n"));
  }

  @AfterAll
  static void stopApiServer() {
    api.close();
  }

  @Test
  void authenticatesWithTheClientCertificateAndTrustsOnlyTheGivenAuthority() throws Exception {
    Path kubeconfig =
        kubeconfig(
            "certificate-authority-data: " + base64(serverCertificatePem),
            "client-certificate-data: " + base64(clientCertificatePem),
            "client-key-data: " + base64(clientKeyPkcs1Pem));

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = run(kubeconfig, out, err);

    assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    assertThat(exit).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("# ar-tp8\n");
  }

  @Test
  void readsCredentialFilesRelativeToTheKubeconfig() throws Exception {
    Files.writeString(keys.resolve("ca.crt"), serverCertificatePem);
    Files.writeString(keys.resolve("client.crt"), clientCertificatePem);
    Files.writeString(keys.resolve("client.key"), clientKeyPkcs1Pem);
    Path kubeconfig =
        kubeconfig(
            "certificate-authority: ca.crt",
            "client-certificate: client.crt",
            "client-key: client.key");

    assertThat(run(kubeconfig, new ByteArrayOutputStream(), new ByteArrayOutputStream())).isZero();
  }

  @Test
  void refusesAServerItsAuthorityDidNotSign() throws Exception {
    Path kubeconfig =
        kubeconfig(
            "certificate-authority-data: " + base64(clientCertificatePem), // not the server's
            "client-certificate-data: " + base64(clientCertificatePem),
            "client-key-data: " + base64(clientKeyPkcs1Pem));

    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = run(kubeconfig, new ByteArrayOutputStream(), err);

    assertThat(exit).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .startsWith("gpucomm report: API server " + api.url());
  }

  @Test
  void skipsVerificationOnlyWhenTheKubeconfigSaysSo() throws Exception {
    Path kubeconfig =
        kubeconfig(
            "insecure-skip-tls-verify: true",
            "client-certificate-data: " + base64(clientCertificatePem),
            "client-key-data: " + base64(clientKeyPkcs1Pem));

    assertThat(run(kubeconfig, new ByteArrayOutputStream(), new ByteArrayOutputStream())).isZero();
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
            .formatted(api.url(), clusterTrust, userCertificate, userKey));
    return file;
  }

  private static String pem(String label, byte[] der) {
    return "-----BEGIN "
        + label
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
        + "\n-----END "
        + label
        + "-----\n";
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
  }

  /** The RSAPrivateKey (PKCS#1) inside a PKCS#8 PrivateKeyInfo, as kubeadm writes client keys. */
  private static byte[] pkcs1Of(byte[] pkcs8) {
    int at = 1 + lengthBytes(pkcs8, 1);
    at += 3; // INTEGER 0
    at += 2 + pkcs8[at + 1]; // AlgorithmIdentifier
    return Arrays.copyOfRange(pkcs8, at + 1 + lengthBytes(pkcs8, at + 1), pkcs8.length);
  }

  private static int lengthBytes(byte[] der, int offset) {
    int first = der[offset] & 0xff;
    return first < 0x80 ? 1 : 1 + (first & 0x7f);
  }
}
