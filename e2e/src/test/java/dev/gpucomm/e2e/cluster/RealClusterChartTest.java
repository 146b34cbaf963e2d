package dev.gpucomm.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.gpucomm.e2e.E2eSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * What the real-cluster run installs, checked without a cluster: the chart, rendered with the
 * values {@link RealCluster} sets, runs the given operator image, puts the given runtime image into
 * CommJob pods and watches only the run's namespace.
 */
class RealClusterChartTest {
  private static final Path REPO = E2eSettings.fromSystem().repoRoot();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @Test
  void theChartInstallsTheGivenImagesWatchingOnlyTheRunsNamespace() throws Exception {
    Map<String, String> values = new LinkedHashMap<>();
    values.putAll(
        HelmValues.images(
            "localhost:5000/gpucomm-operator:e2e", "localhost:5000/gpucomm-runtime:e2e"));
    values.putAll(HelmValues.watchNamespace("gpucomm-e2e-abc123"));

    JsonNode deployment = renderedDeployment("gpucomm-e2e-abc123", values);

    JsonNode container = deployment.at("/spec/template/spec/containers/0");
    assertThat(container.path("image").asText()).isEqualTo("localhost:5000/gpucomm-operator:e2e");
    assertThat(env(container, "GPUCOMM_OPERATOR_RUNTIME_IMAGE"))
        .isEqualTo("localhost:5000/gpucomm-runtime:e2e");
    assertThat(env(container, "QUARKUS_OPERATOR_SDK_NAMESPACES")).isEqualTo("gpucomm-e2e-abc123");
    assertThat(
            deployment
                .at("/spec/template/metadata/labels")
                .path(RealCluster.OPERATOR_POD_LABEL)
                .asText())
        .as("the label RealCluster finds the operator's pods by")
        .isEqualTo(RealCluster.OPERATOR_NAME);
  }

  private static JsonNode renderedDeployment(String namespace, Map<String, String> values)
      throws Exception {
    Path helm = helm();
    List<String> command =
        new ArrayList<>(
            List.of(
                helm.toString(),
                "template",
                "gpucomm-e2e",
                REPO.resolve("helm").resolve(RealCluster.OPERATOR_NAME).toString(),
                "--namespace",
                namespace,
                // the chart's kubeVersion floor, where helm template would assume v1.25.0
                "--kube-version",
                "1.28.0"));
    values.forEach((key, value) -> command.addAll(List.of("--set", key + "=" + value)));
    Path output = Files.createTempFile("helm-template", ".yaml");
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("helm template finished").isTrue();
    String rendered = Files.readString(output, StandardCharsets.UTF_8);
    Files.delete(output);
    assertThat(process.exitValue()).as(rendered).isZero();
    try (YAMLParser parser = new YAMLFactory().createParser(rendered)) {
      for (JsonNode object : YAML.readValues(parser, JsonNode.class).readAll()) {
        if (object != null && object.path("kind").asText().equals("Deployment")) {
          return object;
        }
      }
    }
    throw new AssertionError("no Deployment rendered:\n" + rendered);
  }

  /** The helm the build installs (helm/install-helm.sh); the test is skipped where it cannot. */
  private static Path helm() throws Exception {
    Path output = Files.createTempFile("install-helm", ".out");
    Process process =
        new ProcessBuilder("bash", REPO.resolve("helm/install-helm.sh").toString())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    boolean finished = process.waitFor(5, TimeUnit.MINUTES);
    List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
    Files.delete(output);
    Assumptions.assumeTrue(
        finished && process.exitValue() == 0 && !lines.isEmpty(),
        "helm could not be installed: " + String.join("\n", lines));
    return Path.of(lines.getLast().strip());
  }

  private static String env(JsonNode container, String name) {
    for (JsonNode variable : container.path("env")) {
      if (variable.path("name").asText().equals(name)) {
        return variable.path("value").asText();
      }
    }
    throw new AssertionError("no env " + name + " in " + container);
  }
}
