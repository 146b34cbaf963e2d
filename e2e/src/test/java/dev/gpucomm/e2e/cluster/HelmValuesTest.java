package dev.gpucomm.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.gpucomm.e2e.E2eSettings;
import dev.gpucomm.e2e.cluster.HelmValues.ImageReference;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HelmValuesTest {
  private static final Path CHART_VALUES =
      E2eSettings.fromSystem().repoRoot().resolve("helm/gpucomm-operator/values.yaml");

  @Test
  void setsOnlyKeysTheChartHas() throws Exception {
    JsonNode values = new ObjectMapper(new YAMLFactory()).readTree(CHART_VALUES.toFile());
    Map<String, String> set = new LinkedHashMap<>();
    set.putAll(HelmValues.images("registry.example/operator:1", "registry.example/runtime:1"));
    set.putAll(HelmValues.watchNamespace("gpucomm-e2e-abc123"));

    for (String key : set.keySet()) {
      JsonNode node = values;
      for (String part : key.replaceAll("\\[\\d+]$", "").split("\\.")) {
        node = node.path(part);
      }
      assertThat(node.isMissingNode()).as("%s in %s", key, CHART_VALUES).isFalse();
      if (key.endsWith("]")) {
        assertThat(node.isArray()).as("%s is a list", key).isTrue();
      }
    }
  }

  @Test
  void splitsAnImageReferenceAtItsTagNotAtARegistryPort() {
    assertThat(ImageReference.parse("localhost:5000/gpucomm/runtime:0.1.0"))
        .isEqualTo(new ImageReference("localhost:5000/gpucomm/runtime", "0.1.0"));
    assertThat(ImageReference.parse("localhost:5000/gpucomm/runtime"))
        .isEqualTo(new ImageReference("localhost:5000/gpucomm/runtime", "latest"));
    assertThat(ImageReference.parse("gpucomm-operator:dev"))
        .isEqualTo(new ImageReference("gpucomm-operator", "dev"));
  }

  @Test
  void refusesADigestNamingWhatToGiveInstead() {
    assertThatThrownBy(() -> ImageReference.parse("ghcr.io/x/runtime@sha256:abc"))
        .hasMessage(
            "image ghcr.io/x/runtime@sha256:abc: give a tag, not a digest (the chart takes"
                + " repository and tag)");
  }
}
