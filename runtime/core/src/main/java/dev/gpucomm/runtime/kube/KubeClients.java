package dev.gpucomm.runtime.kube;

import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.files.BoundedFile;
import dev.gpucomm.runtime.files.UnreadableFileException;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Makes the Fabric8 clients gpucomm talks to Kubernetes with: over the JDK's HTTP client, to the
 * cluster of the pod a rank runs in or to the API server that GPUCOMM_KUBE_API names.
 */
public final class KubeClients {
  /** Overrides the API server (plain http allowed, for tests against a mock API server). */
  public static final String OVERRIDE_ENV = "GPUCOMM_KUBE_API";

  public static final Path SERVICE_ACCOUNT =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

  private KubeClients() {}

  /**
   * A client on {@code config}. The HTTP client is named rather than found on the class path, so
   * that another Fabric8 HTTP client there (a test's, say) does not change what gpucomm uses.
   */
  public static KubernetesClient create(Config config) {
    return create(config, builder -> {});
  }

  /** A client as {@link #create(Config)} makes it, its HTTP client further set by {@code more}. */
  public static KubernetesClient create(Config config, Consumer<HttpClient.Builder> more) {
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withHttpClientFactory(new JdkHttpClientFactory())
        .withHttpClientBuilderConsumer(
            builder -> {
              if (isCleartext(config)) {
                builder.preferHttp11();
              }
              more.accept(builder);
            })
        .build();
  }

  /**
   * Plain http: a local proxy ({@code kubectl proxy}) or a test's API server, never a real
   * kube-apiserver. The JDK client would offer such a server an h2c upgrade; Fabric8's mock API
   * server accepts it and then at times never completes the response (the call hangs though the
   * answer was sent). HTTP/1.1 is what these servers speak anyway; over TLS, ALPN still picks.
   */
  static boolean isCleartext(Config config) {
    return config.getMasterUrl() != null && config.getMasterUrl().startsWith("http:");
  }

  /**
   * The API server of a rank: GPUCOMM_KUBE_API, else the cluster of the pod it runs in; empty
   * outside a cluster.
   */
  public static Optional<Config> forRank(Map<String, String> env, RetryPolicy retries) {
    String override = env.get(OVERRIDE_ENV);
    if (override != null && !override.isBlank()) {
      return Optional.of(retries.applyTo(overridden(override, SERVICE_ACCOUNT)));
    }
    String host = env.get(Config.KUBERNETES_SERVICE_HOST_PROPERTY);
    if (host == null || host.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(retries.applyTo(Config.autoConfigure(null)));
  }

  /**
   * The API server at {@code url}, with the service account token and CA of {@code serviceAccount}
   * where they are mounted (a pod that points its ranks elsewhere still has them).
   */
  public static Config overridden(String url, Path serviceAccount) {
    requireServerUrl(url);
    ConfigBuilder config = new ConfigBuilder(Config.empty()).withMasterUrl(url);
    Path token = serviceAccount.resolve("token");
    if (Files.isReadable(token)) {
      // Read per request: projected service account tokens are rotated while the pod runs.
      config.withOauthTokenProvider(() -> read(token));
    }
    Path ca = serviceAccount.resolve("ca.crt");
    if (url.startsWith("https:") && Files.isReadable(ca)) {
      config.withCaCertFile(ca.toString());
    }
    Path namespace = serviceAccount.resolve("namespace");
    if (Files.isReadable(namespace)) {
      config.withNamespace(read(namespace));
    }
    return config.build();
  }

  /**
   * Fabric8 takes a URL without a scheme for a host name and probes it for TLS, logging warnings
   * before the first request fails: a value that is no http(s) URL of a host is the user's mistake.
   * The scheme must be written in lower case, since this class and Fabric8 test it by prefix.
   */
  private static void requireServerUrl(String url) {
    if (!isServerUrl(url)) {
      throw notServerUrl(url);
    }
  }

  /** Whether {@code url} is an http(s) URL of a host, written with its scheme in lower case. */
  public static boolean isServerUrl(String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      return false;
    }
    boolean web = "http".equals(uri.getScheme()) || "https".equals(uri.getScheme());
    return web && uri.getHost() != null;
  }

  private static UsageException notServerUrl(String url) {
    return new UsageException(
        OVERRIDE_ENV + ": '" + url + "' is not an API server URL (http:// or https://HOST[:PORT])");
  }

  /** A service account's token (a few kilobytes) or namespace name: anything larger is not one. */
  private static final int MAX_SERVICE_ACCOUNT_FILE_BYTES = 64 << 10;

  private static String read(Path file) {
    try {
      return BoundedFile.readText(file, MAX_SERVICE_ACCOUNT_FILE_BYTES).strip();
    } catch (UnreadableFileException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }
}
