package dev.gpucomm.runtime.report.fetch;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import dev.gpucomm.api.v1alpha1.JsonFieldPath;
import dev.gpucomm.api.v1alpha1.validation.EchoedValue;
import dev.gpucomm.runtime.files.BoundedFile;
import dev.gpucomm.runtime.files.UnreadableFileException;
import dev.gpucomm.runtime.kube.KubeClients;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Utils;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the cluster to read from, in kubectl's order: {@code --kubeconfig}, then the API server of
 * GPUCOMM_KUBE_API (the runtime's override, for tests and pods), then whatever Fabric8's {@link
 * Config#autoConfigure} finds: the files of KUBECONFIG or ~/.kube/config, else the service account
 * of the pod this runs in. Fabric8 reads kubeconfig files, runs exec credential plugins and applies
 * proxy settings (a cluster's proxy-url, HTTPS_PROXY and NO_PROXY).
 */
final class ClusterLookup {
  /** Where kubectl would look when nothing is configured, for messages. */
  static final String LOOKED_AT =
      "--kubeconfig, KUBECONFIG, ~/.kube/config or a pod's service account";

  /**
   * The largest kubeconfig read: a file of many clusters and users with their certificates embedded
   * stays far below it.
   */
  static final int MAX_KUBECONFIG_BYTES = 16 << 20;

  private ClusterLookup() {}

  /**
   * The configured cluster, or empty when none is configured at all. {@code env} is consulted for
   * GPUCOMM_KUBE_API only: Fabric8 reads KUBECONFIG, HOME and the in-cluster variables from the
   * process environment (or from the Java system properties of the same names that it looks at
   * first).
   *
   * @throws KubeConfigException when a configuration exists but cannot be used
   */
  static Optional<ClusterConfig> find(
      Map<String, String> env, Optional<Path> kubeconfig, Optional<String> context) {
    if (kubeconfig.isPresent()) {
      Path file = kubeconfig.get();
      requireReadable(file, "--kubeconfig " + file);
      Config config = load(file.toString(), () -> fromKubeconfig(file, context));
      requireReadableFilesNamedIn(config, "--kubeconfig " + file);
      requireServerUrl(config, "--kubeconfig " + file);
      // What autoConfigure applies after reading its files: HTTPS_PROXY, NO_PROXY and the like.
      Config.configFromSysPropsOrEnvVars(config);
      return Optional.of(new ClusterConfig(config, describe(file.toString(), config, context)));
    }
    String override = env.get(KubeClients.OVERRIDE_ENV);
    if (override != null && !override.isBlank()) {
      return Optional.of(
          new ClusterConfig(
              KubeClients.overridden(override, KubeClients.SERVICE_ACCOUNT),
              KubeClients.OVERRIDE_ENV));
    }
    // A name that is not there is passed over, as kubectl does, and so is /dev/null, the usual way
    // to say "no kubeconfig"; one that is there must be a file that can be read (Fabric8 would pass
    // over a directory or another device, and the report would say that no cluster is configured).
    List<String> files =
        Config.getKubeconfigFilenames().stream()
            .filter(name -> !name.isBlank() && Files.exists(Path.of(name)))
            .filter(name -> !isDevNull(Path.of(name)))
            .toList();
    for (String name : files) {
      requireReadable(Path.of(name), name);
    }
    if (!files.isEmpty()) {
      String source = String.join(", ", files);
      Config config = load(source, () -> Config.autoConfigure(context.orElse(null)));
      requireReadableFilesNamedIn(config, source);
      requireServerUrl(config, source);
      return Optional.of(new ClusterConfig(config, describe(source, config, context)));
    }
    if (inPod()) {
      return Optional.of(
          new ClusterConfig(
              load("the pod's service account", () -> Config.autoConfigure(null)),
              "the pod's service account"));
    }
    return Optional.empty();
  }

  /**
   * Fabric8 reads a kubeconfig whole, and would read a device to its end or wait on a named pipe:
   * the file must be a regular one of sane size first.
   */
  private static void requireReadable(Path file, String source) {
    try {
      BoundedFile.check(file, MAX_KUBECONFIG_BYTES);
    } catch (UnreadableFileException e) {
      throw new KubeConfigException(source + ": " + e.getMessage());
    }
  }

  /**
   * The files a kubeconfig names (its certificate authority, client certificate and key) are read
   * whole when the client is made: each must be a regular file of sane size too.
   */
  private static void requireReadableFilesNamedIn(Config config, String source) {
    Map<String, String> named = new LinkedHashMap<>();
    named.put("certificate-authority", config.getCaCertFile());
    named.put("client-certificate", config.getClientCertFile());
    named.put("client-key", config.getClientKeyFile());
    named.forEach(
        (field, name) -> {
          if (name != null && !name.isBlank()) {
            requireReadable(Path.of(name), source + ": " + field + " " + name);
          }
        });
  }

  /**
   * Fabric8 reads a file of no YAML document (empty, comments only, {@code ---}) as no
   * configuration and then fails on it with a NullPointerException.
   */
  private static Config fromKubeconfig(Path file, Optional<String> context) {
    try {
      return Config.fromKubeconfig(context.orElse(null), file.toFile());
    } catch (NullPointerException e) {
      throw new KubeConfigException(
          "--kubeconfig " + file + ": holds no kubeconfig (no clusters, contexts or users)", e);
    }
  }

  /**
   * The current context's cluster server: Fabric8 takes a value without a scheme for a host name
   * and probes it for TLS, and a request to a URL that is none fails only after that, said of the
   * URL alone.
   */
  private static void requireServerUrl(Config config, String source) {
    String server = config.getMasterUrl();
    if (server == null || !KubeClients.isServerUrl(server.strip())) {
      throw new KubeConfigException(
          source
              + ": cluster server "
              + EchoedValue.quoted(String.valueOf(server))
              + " is not an API server URL (http:// or https://HOST[:PORT])");
    }
  }

  private static boolean isDevNull(Path file) {
    try {
      return Files.isSameFile(file, DEV_NULL);
    } catch (IOException e) {
      return false;
    }
  }

  private static final Path DEV_NULL = Path.of("/dev/null");

  /** Where Fabric8 would take an in-cluster configuration from. */
  private static boolean inPod() {
    String host = Utils.getSystemPropertyOrEnvVar(Config.KUBERNETES_SERVICE_HOST_PROPERTY);
    String token =
        Utils.getSystemPropertyOrEnvVar(
            Config.KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN_FILE_SYSTEM_PROPERTY,
            Config.KUBERNETES_SERVICE_ACCOUNT_TOKEN_PATH);
    return host != null
        && !host.isBlank()
        && Utils.getSystemPropertyOrEnvVar(
            Config.KUBERNETES_AUTH_TRYSERVICEACCOUNT_SYSTEM_PROPERTY, true)
        && Files.isReadable(Path.of(token));
  }

  /**
   * Fabric8's reading of a configuration. A file that is not YAML, or YAML of the wrong shape,
   * fails inside the YAML parser or Jackson with their own exceptions rather than a {@link
   * KubernetesClientException}; those are the configuration's. Anything else (a bad Fabric8 setting
   * in the environment, a bug) is not said of the file.
   */
  private static Config load(String source, Supplier<Config> loader) {
    try {
      return loader.get();
    } catch (StackOverflowError e) {
      // the YAML reader Fabric8 uses follows an alias inside its own value (a: &x [*x]) and
      // nesting without a bound; the file, not this program, is what cannot be read
      throw new KubeConfigException(
          source + ": cannot be used (nested too deeply, or an alias inside the value it names)");
    } catch (RuntimeException e) {
      if (!isConfigurationProblem(e)) {
        throw e;
      }
      throw new KubeConfigException(source + ": cannot be used (" + rootMessage(e) + ")", e);
    }
  }

  /** Fabric8's own refusal, or the YAML parser's or Jackson's, anywhere in the chain. */
  private static boolean isConfigurationProblem(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof KubernetesClientException
          || cause instanceof JacksonException
          // the YAML parser Fabric8 reads with is not a dependency of ours: known by its package
          || cause.getClass().getName().startsWith("org.snakeyaml.engine.")) {
        return true;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return false;
  }

  /** "FILE (context NAME)", once the requested context is known to exist. */
  private static String describe(String source, Config config, Optional<String> context) {
    List<NamedContext> contexts = config.getContexts() == null ? List.of() : config.getContexts();
    if (context.isPresent()
        && contexts.stream().noneMatch(named -> named.getName().equals(context.get()))) {
      // Fabric8 would fall back to the current context; kubectl refuses, and so do we.
      throw new KubeConfigException(source + ": no context named " + context.get());
    }
    NamedContext current = config.getCurrentContext();
    if (current == null) {
      throw new KubeConfigException(source + ": no current-context set (use --context)");
    }
    return source + " (context " + current.getName() + ")";
  }

  /** Where the YAML parser says a problem is, on a later line of its message. */
  private static final Pattern POSITION = Pattern.compile("line (\\d+), column (\\d+)");

  /**
   * The first line of the innermost message, with the place it names on later lines: the last
   * position the YAML parser names (it names the context's position first and the problem's last),
   * or the field Jackson could not read. One line for the user.
   */
  static String rootMessage(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage() == null ? root.toString() : root.getMessage();
    String first = message.lines().findFirst().orElse("").strip();
    if (root instanceof MismatchedInputException) {
      // Jackson names Java types ("ArrayList<NamedCluster> from Integer value"): say it plainly
      first = "a value of the wrong type";
    }
    Matcher position = POSITION.matcher(message);
    String at = null;
    while (position.find()) {
      at = "line " + position.group(1) + ", column " + position.group(2);
    }
    if (at == null && root instanceof JsonMappingException mapping) {
      String field = JsonFieldPath.of(mapping);
      at = field.isEmpty() ? null : field;
    }
    return at == null ? first : first + ", at " + at;
  }
}
