package dev.gpucomm.deploy;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/** Runs the helm binary the build installed, and reads what helm template renders. */
final class Helm {
  /**
   * Refuses a key given twice in one mapping, as kustomize and Flux do (Helm's own parser keeps the
   * last one silently, as Jackson would by default).
   */
  private static final YAMLFactory STRICT_YAML =
      YAMLFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private static final ObjectMapper YAML = new ObjectMapper(STRICT_YAML);

  final Path binary = Path.of(System.getProperty("helm"));
  final Path chart = Path.of(System.getProperty("chart"));

  /** What a helm command printed and how it exited. */
  record Result(int exitCode, String output) {}

  /**
   * The Kubernetes version charts are rendered for: the chart's kubeVersion floor (its CRD's CEL
   * rules set reason and fieldPath, which came with 1.28), where {@code helm template} would
   * otherwise assume v1.25.0.
   */
  static final String KUBERNETES_VERSION = "1.28.0";

  Result run(String... arguments) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(binary.toString());
    command.addAll(List.of(arguments));
    if (arguments.length > 0 && arguments[0].equals("template")) {
      command.addAll(List.of("--kube-version", KUBERNETES_VERSION));
    }
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException("helm " + String.join(" ", arguments) + " did not finish");
    }
    return new Result(process.exitValue(), output);
  }

  /** The objects {@code helm template} renders, with the given extra arguments. */
  List<JsonNode> template(String... arguments) throws IOException, InterruptedException {
    return templateRelease("ops", arguments);
  }

  /** {@link #template} for a release named {@code release}. */
  List<JsonNode> templateRelease(String release, String... arguments)
      throws IOException, InterruptedException {
    return templateChart(chart, release, arguments);
  }

  /** {@link #templateRelease} of another chart, such as an umbrella chart that depends on ours. */
  List<JsonNode> templateChart(Path chartDirectory, String release, String... arguments)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("template", release, chartDirectory.toString()));
    command.add("--namespace=gpucomm-system");
    command.addAll(List.of(arguments));
    Result result = run(command.toArray(String[]::new));
    if (result.exitCode() != 0) {
      throw new AssertionError("helm template failed:\n" + result.output());
    }
    List<JsonNode> objects = new ArrayList<>();
    try (YAMLParser parser = STRICT_YAML.createParser(result.output())) {
      for (JsonNode node : YAML.readValues(parser, JsonNode.class).readAll()) {
        if (node != null && node.has("kind")) {
          objects.add(node);
        }
      }
    }
    return objects;
  }

  /** The objects of a multi-document YAML file of the repository, such as an example. */
  static List<JsonNode> documents(Path file) throws IOException {
    List<JsonNode> objects = new ArrayList<>();
    try (YAMLParser parser = STRICT_YAML.createParser(file.toFile())) {
      for (JsonNode node : YAML.readValues(parser, JsonNode.class).readAll()) {
        if (node != null && node.has("kind")) {
          objects.add(node);
        }
      }
    }
    return objects;
  }

  static JsonNode find(List<JsonNode> objects, String kind, String name) {
    return objects.stream()
        .filter(o -> o.path("kind").asText().equals(kind))
        .filter(o -> o.path("metadata").path("name").asText().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " rendered"));
  }

  static List<JsonNode> all(List<JsonNode> objects, String kind) {
    return objects.stream().filter(o -> o.path("kind").asText().equals(kind)).toList();
  }

  /** The value of env var {@code name} of the first container. */
  static String env(JsonNode deployment, String name) {
    ArrayNode env = (ArrayNode) deployment.at("/spec/template/spec/containers/0/env");
    for (JsonNode var : env) {
      if (var.path("name").asText().equals(name)) {
        return var.has("value") ? var.get("value").asText() : var.get("valueFrom").toString();
      }
    }
    throw new AssertionError("no env " + name);
  }

  /** "apiGroup/resource:verb" for every verb a role grants on every resource it names. */
  static Set<String> grants(JsonNode role) {
    Set<String> grants = new TreeSet<>();
    rules(role)
        .forEach(
            (resource, verbs) -> {
              for (String verb : verbs.split(",")) {
                grants.add(resource + ":" + verb);
              }
            });
    return grants;
  }

  /** "apiGroup/resource" to "verb,verb" for each rule of a role. */
  static Map<String, String> rules(JsonNode role) {
    Map<String, String> rules = new TreeMap<>();
    for (JsonNode rule : role.path("rules")) {
      List<String> verbs = new ArrayList<>();
      rule.path("verbs").forEach(v -> verbs.add(v.asText()));
      for (JsonNode group : rule.path("apiGroups")) {
        for (JsonNode resource : rule.path("resources")) {
          rules.put(group.asText() + "/" + resource.asText(), String.join(",", verbs));
        }
      }
    }
    return rules;
  }
}
