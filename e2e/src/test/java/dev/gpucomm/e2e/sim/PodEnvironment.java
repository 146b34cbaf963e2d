package dev.gpucomm.e2e.sim;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceFieldSelector;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The environment a kubelet gives a container: envFrom first, then env in order, with {@code
 * valueFrom} resolved (downward API fields, resources, ConfigMap and Secret keys) and {@code
 * $(VAR)} references expanded.
 */
final class PodEnvironment {
  private final KubernetesClient client;
  private final Pod pod;
  private final Container container;
  private final String podAddress;
  private final String nodeName;

  PodEnvironment(
      KubernetesClient client, Pod pod, Container container, String podAddress, String nodeName) {
    this.client = client;
    this.pod = pod;
    this.container = container;
    this.podAddress = podAddress;
    this.nodeName = nodeName;
  }

  Map<String, String> resolve() {
    Map<String, String> environment = new LinkedHashMap<>();
    for (EnvFromSource source : nullSafe(container.getEnvFrom())) {
      String prefix = source.getPrefix() == null ? "" : source.getPrefix();
      if (source.getConfigMapRef() != null) {
        configMap(source.getConfigMapRef().getName())
            .map(ConfigMap::getData)
            .ifPresent(data -> data.forEach((k, v) -> environment.put(prefix + k, v)));
      }
      if (source.getSecretRef() != null) {
        secret(source.getSecretRef().getName())
            .ifPresent(data -> data.forEach((k, v) -> environment.put(prefix + k, v)));
      }
    }
    for (EnvVar variable : nullSafe(container.getEnv())) {
      String value =
          variable.getValueFrom() != null
              ? valueFrom(variable.getName(), variable.getValueFrom())
              : expand(variable.getValue() == null ? "" : variable.getValue(), environment);
      environment.put(variable.getName(), value);
    }
    return environment;
  }

  private String valueFrom(String name, EnvVarSource source) {
    if (source.getFieldRef() != null) {
      return field(source.getFieldRef().getFieldPath());
    }
    if (source.getResourceFieldRef() != null) {
      return resourceField(source.getResourceFieldRef());
    }
    if (source.getConfigMapKeyRef() != null) {
      var ref = source.getConfigMapKeyRef();
      return configMap(ref.getName())
          .map(ConfigMap::getData)
          .map(data -> data.get(ref.getKey()))
          .orElseThrow(() -> missing(name, "ConfigMap " + ref.getName() + " key " + ref.getKey()));
    }
    if (source.getSecretKeyRef() != null) {
      var ref = source.getSecretKeyRef();
      return secret(ref.getName())
          .map(data -> data.get(ref.getKey()))
          .orElseThrow(() -> missing(name, "Secret " + ref.getName() + " key " + ref.getKey()));
    }
    throw missing(name, "a valueFrom source this simulator does not know");
  }

  private String field(String path) {
    var metadata = pod.getMetadata();
    return switch (path) {
      case "metadata.name" -> metadata.getName();
      case "metadata.namespace" -> metadata.getNamespace();
      case "metadata.uid" -> metadata.getUid();
      case "spec.nodeName" -> Optional.ofNullable(pod.getSpec().getNodeName()).orElse(nodeName);
      case "spec.serviceAccountName" ->
          Optional.ofNullable(pod.getSpec().getServiceAccountName()).orElse("default");
      case "status.podIP", "status.podIPs" -> podAddress;
      case "status.hostIP", "status.hostIPs" -> NodeSimulator.NODE_ADDRESS;
      default -> {
        if (path.startsWith("metadata.labels['") && path.endsWith("']")) {
          yield nullSafe(metadata.getLabels()).getOrDefault(key(path), "");
        }
        if (path.startsWith("metadata.annotations['") && path.endsWith("']")) {
          yield nullSafe(metadata.getAnnotations()).getOrDefault(key(path), "");
        }
        throw new IllegalArgumentException(
            "pod " + metadata.getName() + ": unsupported fieldRef " + path);
      }
    };
  }

  private String resourceField(ResourceFieldSelector selector) {
    String resource = selector.getResource();
    var requirements = container.getResources();
    Map<String, Quantity> amounts =
        resource.startsWith("limits.")
            ? requirements == null ? Map.of() : nullSafe(requirements.getLimits())
            : requirements == null ? Map.of() : nullSafe(requirements.getRequests());
    String name = resource.substring(resource.indexOf('.') + 1);
    Quantity amount = amounts.get(name);
    if (amount == null) {
      // A kubelet reports the node's allocatable amount; the simulated node has the host's CPUs.
      return name.equals("cpu")
          ? Integer.toString(Runtime.getRuntime().availableProcessors())
          : "0";
    }
    BigDecimal divisor =
        selector.getDivisor() == null
            ? BigDecimal.ONE
            : Quantity.getAmountInBytes(selector.getDivisor());
    return Quantity.getAmountInBytes(amount)
        .divide(divisor, 0, RoundingMode.CEILING)
        .toPlainString();
  }

  private Optional<ConfigMap> configMap(String name) {
    return Optional.ofNullable(
        client.configMaps().inNamespace(pod.getMetadata().getNamespace()).withName(name).get());
  }

  private Optional<Map<String, String>> secret(String name) {
    Secret secret =
        client.secrets().inNamespace(pod.getMetadata().getNamespace()).withName(name).get();
    if (secret == null) {
      return Optional.empty();
    }
    Map<String, String> decoded = new LinkedHashMap<>(nullSafe(secret.getStringData()));
    nullSafe(secret.getData())
        .forEach(
            (k, v) ->
                decoded.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
    return Optional.of(decoded);
  }

  /** Expands $(NAME) from earlier variables; $$ escapes, unknown names stay as written. */
  static String expand(String value, Map<String, String> earlier) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '$' && i + 1 < value.length() && value.charAt(i + 1) == '$') {
        out.append('$');
        i++;
      } else if (c == '$' && i + 1 < value.length() && value.charAt(i + 1) == '(') {
        int close = value.indexOf(')', i + 2);
        String name = close < 0 ? null : value.substring(i + 2, close);
        if (name != null && earlier.containsKey(name)) {
          out.append(earlier.get(name));
          i = close;
        } else {
          out.append(c);
        }
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static String key(String path) {
    return path.substring(path.indexOf("['") + 2, path.length() - 2);
  }

  private IllegalStateException missing(String variable, String what) {
    return new IllegalStateException(
        "pod " + pod.getMetadata().getName() + ": env " + variable + " refers to " + what);
  }

  private static <T> java.util.List<T> nullSafe(java.util.List<T> list) {
    return list == null ? java.util.List.of() : list;
  }

  private static <K, V> Map<K, V> nullSafe(Map<K, V> map) {
    return map == null ? Map.of() : map;
  }
}
