package dev.gpucomm.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What kubectl shows of a CommJob on a real cluster, read from the committed CRD. What its CEL
 * rules admit is in CelRulesTest.
 */
class CrdShapeTest {
  private static JsonNode crd;

  @BeforeAll
  static void readCommittedCrd() throws IOException {
    crd =
        new ObjectMapper(new YAMLFactory())
            .readTree(
                Path.of(System.getProperty("committedCrdDir"), "commjobs.gpucomm.dev-v1.yml")
                    .toFile());
  }

  @Test
  void shortNamesLeaveCronJobsCjAlone() {
    JsonNode names = crd.at("/spec/names");
    assertThat(texts(names.get("shortNames"))).containsExactly("gcj").doesNotContain("cj");
    assertThat(texts(names.get("categories"))).containsExactly("gpucomm");
  }

  @Test
  void kubectlGetShowsPhaseWorldBestRegressedRestartsAgeInThatOrder() {
    List<String> columns = new ArrayList<>();
    crd.at("/spec/versions/0/additionalPrinterColumns")
        .forEach(column -> columns.add(column.get("name").asText()));
    assertThat(columns).containsExactly("Phase", "World", "Best", "Regressed", "Restarts", "Age");
  }

  @Test
  void kubectlExplainDescribesTheResourceAndItsConditions() {
    JsonNode root = crd.at("/spec/versions/0/schema/openAPIV3Schema");
    assertThat(root.get("description").asText()).isEqualTo(CommJob.DESCRIPTION);
    JsonNode conditions = root.at("/properties/status/properties/conditions");
    assertThat(conditions.get("x-kubernetes-list-type").asText()).isEqualTo("map");
    assertThat(texts(conditions.get("x-kubernetes-list-map-keys"))).containsExactly("type");
    conditions
        .at("/items/properties")
        .properties()
        .forEach(
            field ->
                assertThat(field.getValue().has("description"))
                    .as("conditions[].%s is described", field.getKey())
                    .isTrue());
  }

  @Test
  void kubectlExplainSaysWhenTheTimeoutsClockStarts() {
    JsonNode spec = crd.at("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties");
    assertThat(spec.at("/timeoutSeconds/description").asText())
        .as("counted from when all pods ran, not from creation")
        .contains("after all its pods were first running (status.runningTime)")
        .contains("does not");
    assertThat(spec.at("/schedulingTimeoutSeconds/description").asText()).isNotBlank();
  }

  @Test
  void aJobRunsUnlessSuspendedAndItsPolicyAndSchedulerAreEnumerated() {
    JsonNode spec = crd.at("/spec/versions/0/schema/openAPIV3Schema/properties/spec");
    assertThat(spec.at("/properties/suspend/default").asBoolean(true)).isFalse();
    assertThat(texts(spec.at("/properties/cleanPodPolicy/enum")))
        .containsExactlyInAnyOrder("Running", "All", "None");
    assertThat(texts(spec.at("/properties/gang/properties/scheduler/enum")))
        .containsExactlyInAnyOrder("volcano", "coscheduling");
  }

  private static List<String> texts(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(value -> values.add(value.asText()));
    return values;
  }
}
