package dev.gpucomm.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The committed CRD files must be exactly what the build generates from the Java types. */
class GeneratedCrdTest {
  private static final String CRD_FILE = "commjobs.gpucomm.dev-v1.yml";

  private final Path generated = Path.of(System.getProperty("generatedCrdDir"), CRD_FILE);

  @Test
  void committedCrdMatchesTheGeneratedOne() throws IOException {
    assertCommittedCopyIsCurrent(Path.of(System.getProperty("committedCrdDir"), CRD_FILE));
  }

  @Test
  void helmChartCrdMatchesTheGeneratedOne() throws IOException {
    assertCommittedCopyIsCurrent(Path.of(System.getProperty("chartCrdDir"), CRD_FILE));
  }

  private void assertCommittedCopyIsCurrent(Path committed) throws IOException {
    assertThat(generated).exists();
    assertThat(committed)
        .as(
            "%s is stale: copy %s over it (./mvnw -pl api process-classes does the generation)",
            committed, generated)
        .exists();
    assertThat(Files.readString(committed))
        .as(
            "%s differs from the CRD generated from the Java types; copy %s over it",
            committed, generated)
        .isEqualTo(Files.readString(generated));
  }

  @Test
  void crdDescribesEverySpecField() throws IOException {
    String crd = Files.readString(generated);
    assertThat(crd).contains("scope: \"Namespaced\"", "shortNames:", "subresources:", "status: {}");
    assertThat(crd).contains("spec.worldSize must be a multiple of spec.ranksPerPod");
    JsonNode schema =
        new ObjectMapper(new YAMLFactory())
            .readTree(crd)
            .at("/spec/versions/0/schema/openAPIV3Schema/properties");
    List<String> undescribed = new ArrayList<>();
    collectUndescribed("spec", schema.get("spec"), undescribed);
    collectUndescribed("status", schema.get("status"), undescribed);
    assertThat(undescribed)
        .as("fields without a description (kubectl explain shows them bare)")
        .isEmpty();
  }

  /**
   * Fields of the pod template overlay whose type is a Kubernetes pod type: the field is described
   * here, what lies below it upstream ({@code kubectl explain pod.spec.affinity}).
   */
  private static final Set<String> KUBERNETES_TYPED =
      Set.of(
          "spec.template.spec.tolerations",
          "spec.template.spec.affinity",
          "spec.template.spec.imagePullSecrets",
          "spec.template.spec.topologySpreadConstraints",
          "spec.template.spec.volumes",
          "spec.template.spec.resourceClaims",
          "spec.template.spec.containers[].resources",
          "spec.template.spec.containers[].env",
          "spec.template.spec.containers[].envFrom",
          "spec.template.spec.containers[].volumeMounts");

  /** Walks the schema; Kubernetes' own Condition type is described upstream and skipped. */
  private static void collectUndescribed(String path, JsonNode node, List<String> undescribed) {
    if (!node.has("description")) {
      undescribed.add(path);
    }
    if (KUBERNETES_TYPED.contains(path)) {
      return;
    }
    node.path("properties")
        .properties()
        .forEach(
            field -> {
              if (!field.getKey().equals("conditions")) {
                collectUndescribed(path + "." + field.getKey(), field.getValue(), undescribed);
              }
            });
    if (node.path("items").has("properties")) {
      node.get("items")
          .get("properties")
          .properties()
          .forEach(f -> collectUndescribed(path + "[]." + f.getKey(), f.getValue(), undescribed));
    }
  }
}
