package dev.gpucomm.runtime.report.fetch;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A connection from inside a pod: the API server from KUBERNETES_SERVICE_HOST/PORT, the pod's
 * service account token, CA certificate and namespace from their mounted files.
 */
public final class InClusterConfig {
  static final Path SERVICE_ACCOUNT = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

  private InClusterConfig() {}

  /** Whether this process runs in a pod with a service account mounted. */
  public static boolean available(Map<String, String> environment, Path serviceAccount) {
    return environment.containsKey("KUBERNETES_SERVICE_HOST")
        && Files.isReadable(serviceAccount.resolve("token"));
  }

  public static KubeConnection load(Map<String, String> environment, Path serviceAccount) {
    String host = environment.get("KUBERNETES_SERVICE_HOST");
    String port = environment.getOrDefault("KUBERNETES_SERVICE_PORT", "443");
    if (host == null) {
      throw new KubeConfigException("not in a pod: KUBERNETES_SERVICE_HOST is not set");
    }
    String hostPart = host.contains(":") ? "[" + host + "]" : host; // IPv6 service address
    String token = read(serviceAccount.resolve("token")).strip();
    String namespace =
        Files.isReadable(serviceAccount.resolve("namespace"))
            ? read(serviceAccount.resolve("namespace")).strip()
            : "default";
    return new KubeConnection(
        URI.create("https://" + hostPart + ":" + port),
        Optional.of(tls(serviceAccount.resolve("ca.crt"))),
        Optional.of("Bearer " + token),
        namespace,
        "in-cluster service account");
  }

  private static SSLContext tls(Path caFile) {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      if (!Files.isReadable(caFile)) {
        context.init(null, null, new SecureRandom());
        return context;
      }
      KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
      trusted.load(null, null);
      int i = 0;
      for (X509Certificate certificate :
          Pem.certificates(Files.readAllBytes(caFile), caFile.toString())) {
        trusted.setCertificateEntry("ca-" + i++, certificate);
      }
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(trusted);
      context.init(null, factory.getTrustManagers(), new SecureRandom());
      return context;
    } catch (IOException | java.security.GeneralSecurityException e) {
      throw new KubeConfigException(caFile + ": cannot set up TLS (" + e.getMessage() + ")");
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new KubeConfigException(file + " cannot be read");
    }
  }
}
