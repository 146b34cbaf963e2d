package dev.gpucomm.runtime.report.fetch;

import dev.gpucomm.runtime.kube.KubeClients;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the cluster to read from, in kubectl's order: {@code --kubeconfig}, then the API server of
 * GPUCOMM_KUBE_API (the runtime's override, for tests and pods), KUBECONFIG, ~/.kube/config, and
 * last the service account of the pod this runs in.
 */
public final class ClusterConnections {
  private ClusterConnections() {}

  /** Where kubectl would look when nothing is configured, for messages. */
  public static final String LOOKED_AT =
      "--kubeconfig, KUBECONFIG, ~/.kube/config or a pod's service account";

  /**
   * The configured cluster, or empty when none is configured at all.
   *
   * @throws KubeConfigException when a configuration exists but cannot be used
   */
  public static Optional<KubeConnection> find(
      Map<String, String> env, Optional<Path> kubeconfig, Optional<String> context) {
    return find(env, kubeconfig, context, InClusterConfig.SERVICE_ACCOUNT);
  }

  static Optional<KubeConnection> find(
      Map<String, String> env,
      Optional<Path> kubeconfig,
      Optional<String> context,
      Path serviceAccount) {
    try {
      return Optional.of(resolve(env, kubeconfig, context, serviceAccount));
    } catch (NoClusterException e) {
      return Optional.empty();
    }
  }

  private static KubeConnection resolve(
      Map<String, String> env,
      Optional<Path> kubeconfig,
      Optional<String> context,
      Path serviceAccount) {
    if (kubeconfig.isPresent()) {
      Path file = kubeconfig.get();
      if (!Files.isRegularFile(file)) {
        throw new KubeConfigException("--kubeconfig " + file + ": no such file");
      }
      return KubeConfigFile.load(List.of(file), context);
    }
    String override = env.get(KubeClients.OVERRIDE_ENV);
    if (override != null && !override.isBlank()) {
      return overridden(URI.create(override), serviceAccount);
    }
    String list = env.get("KUBECONFIG");
    if (list != null && !list.isBlank()) {
      List<Path> files =
          Arrays.stream(list.split(File.pathSeparator))
              .filter(s -> !s.isBlank())
              .map(Path::of)
              .toList();
      return KubeConfigFile.load(files, context);
    }
    Optional<Path> home = Optional.ofNullable(env.get("HOME")).map(Path::of);
    Optional<Path> defaultFile = home.map(h -> h.resolve(".kube").resolve("config"));
    if (defaultFile.isPresent() && Files.isRegularFile(defaultFile.get())) {
      return KubeConfigFile.load(List.of(defaultFile.get()), context);
    }
    if (InClusterConfig.available(env, serviceAccount)) {
      return InClusterConfig.load(env, serviceAccount);
    }
    throw new NoClusterException();
  }

  /** Nothing configured: not an error of any one file. */
  private static final class NoClusterException extends RuntimeException {
    NoClusterException() {
      super(null, null, false, false);
    }
  }

  /** GPUCOMM_KUBE_API: that server, with the pod's service account token when there is one. */
  private static KubeConnection overridden(URI server, Path serviceAccount) {
    Optional<String> token = read(serviceAccount.resolve("token"));
    return new KubeConnection(
        server,
        Optional.empty(),
        token.map(t -> "Bearer " + t),
        read(serviceAccount.resolve("namespace")).orElse("default"),
        KubeClients.OVERRIDE_ENV);
  }

  private static Optional<String> read(Path file) {
    try {
      return Files.isReadable(file)
          ? Optional.of(Files.readString(file).strip())
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
