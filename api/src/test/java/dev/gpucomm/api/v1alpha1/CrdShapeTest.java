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

/** What kubectl shows of a CommJob on a real cluster, read from the committed CRD. */
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
  void kubectlGetShowsPhaseWorldBestRegressedAgeInThatOrder() {
    List<String> columns = new ArrayList<>();
    crd.at("/spec/versions/0/additionalPrinterColumns")
        .forEach(column -> columns.add(column.get("name").asText()));
    assertThat(columns).containsExactly("Phase", "World", "Best", "Regressed", "Age");
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
  void theNameIsCheckedAtAdmissionWithTheOperatorsRules() {
    List<String> rules = new ArrayList<>();
    crd.at("/spec/versions/0/schema/openAPIV3Schema/x-kubernetes-validations")
        .forEach(rule -> rules.add(rule.get("rule").asText()));
    assertThat(rules)
        .containsExactly(
            "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
            "size(self.metadata.name) <= " + CommJob.MAX_NAME_LENGTH);
  }

  @Test
  void whatAJobRunsIsImmutableFieldByFieldWhileItsLifecycleFieldsMayChange() {
    JsonNode spec = crd.at("/spec/versions/0/schema/openAPIV3Schema/properties/spec");
    for (String field :
        List.of(
            "worldSize",
            "ranksPerPod",
            "device",
            "workload",
            "heuristic",
            "timeoutSeconds",
            "baseline",
            "network",
            "sharedMemorySize",
            "gang")) {
      assertThat(rules(spec.at("/properties/" + field)))
          .as("spec.%s is immutable", field)
          .contains("self == oldSelf");
    }
    for (String field :
        List.of(
            "suspend", "ttlSecondsAfterFinished", "cleanPodPolicy", "schedulingTimeoutSeconds")) {
      assertThat(rules(spec.at("/properties/" + field))).as("spec.%s may change", field).isEmpty();
    }
    assertThat(rules(spec)).doesNotContain("self == oldSelf");
  }

  @Test
  void theTemplateMayChangeOnlyWhileTheJobIsSuspendedAsKueuePlacesIt() {
    JsonNode spec = crd.at("/spec/versions/0/schema/openAPIV3Schema/properties/spec");
    assertThat(rules(spec))
        .contains(
            "(has(oldSelf.suspend) && oldSelf.suspend) || (has(self.template) =="
                + " has(oldSelf.template) && (!has(self.template) || self.template =="
                + " oldSelf.template))");
    assertThat(spec.at("/properties/suspend/default").asBoolean(true)).isFalse();
    assertThat(texts(spec.at("/properties/cleanPodPolicy/enum")))
        .containsExactlyInAnyOrder("Running", "All", "None");
    assertThat(texts(spec.at("/properties/gang/properties/scheduler/enum")))
        .containsExactlyInAnyOrder("volcano", "coscheduling");
  }

  private static List<String> rules(JsonNode schema) {
    List<String> rules = new ArrayList<>();
    schema.path("x-kubernetes-validations").forEach(rule -> rules.add(rule.get("rule").asText()));
    return rules;
  }

  private static List<String> texts(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(value -> values.add(value.asText()));
    return values;
  }
}
