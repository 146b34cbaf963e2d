package dev.gpucomm.api.v1alpha1.crd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

/** The rule evaluator keeps to the API server's ways where a CRD's rules could tell them apart. */
class CelValidationRulesTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @Test
  void aTransitionRuleRunsOnlyOnUpdateAndOnlyWhereTheOldValueExists() {
    CelValidationRules frozenReplicas =
        rules(
            """
            type: object
            properties:
              replicas:
                type: integer
                x-kubernetes-validations: [{rule: self == oldSelf, message: frozen}]
            """);
    assertThat(frozenReplicas.onCreate(yaml("{replicas: 1}"))).as("create").isEmpty();
    assertThat(frozenReplicas.onUpdate(yaml("{}"), yaml("{replicas: 1}"))).as("set").isEmpty();
    assertThat(frozenReplicas.onUpdate(yaml("{replicas: 1}"), yaml("{replicas: 2}")))
        .containsExactly("replicas: frozen");
  }

  @Test
  void aDefaultIsFilledInBeforeTheRulesSeeTheObject() {
    CelValidationRules atLeastTwo =
        rules(
            """
            type: object
            properties:
              replicas: {type: integer, default: 1}
            x-kubernetes-validations: [{rule: self.replicas >= 2, message: too few}]
            """);
    assertThat(atLeastTwo.onCreate(yaml("{}"))).containsExactly("too few");
    assertThat(atLeastTwo.onCreate(yaml("{replicas: 3}"))).isEmpty();
  }

  @Test
  void matchesFindsThePatternAnywhereAsRe2DoesInKubernetes() {
    CelValidationRules mentionsGpu =
        rules(
            """
            type: object
            properties:
              pool: {type: string, x-kubernetes-validations: [{rule: "self.matches('gpu')"}]}
            """);
    assertThat(mentionsGpu.onCreate(yaml("{pool: h100-gpu-nodes}"))).isEmpty();
    assertThat(mentionsGpu.onCreate(yaml("{pool: cpu}")))
        .containsExactly("pool: failed rule: self.matches('gpu')");
  }

  @Test
  void aNumberFieldWrittenWithoutAFractionEqualsTheSameDouble() {
    CelValidationRules frozenRatio =
        rules(
            """
            type: object
            properties:
              ratio: {type: number, x-kubernetes-validations: [{rule: self == oldSelf}]}
            """);
    assertThat(frozenRatio.onUpdate(yaml("{ratio: 5.0}"), yaml("{ratio: 5}"))).isEmpty();
  }

  @Test
  void aCrdWhoseRuleGivesAReasonTheServerDoesNotTakeIsRefused() {
    assertThatThrownBy(
            () ->
                rules(
                    """
                    type: object
                    x-kubernetes-validations: [{rule: "true", reason: FieldValueTooLong}]
                    """))
        .hasMessageContaining("refuses reason FieldValueTooLong");
  }

  @Test
  void aCrdWithATransitionRuleUnderAnAtomicListIsRefused() {
    assertThatThrownBy(
            () ->
                rules(
                    """
                    type: object
                    properties:
                      ports:
                        type: array
                        items: {type: integer, x-kubernetes-validations: [{rule: self == oldSelf}]}
                    """))
        .hasMessageStartingWith("ports[*]: ")
        .hasMessageContaining("not a map list");
  }

  @Test
  void aCrdWithARuleThatDoesNotCompileIsRefused() {
    assertThatThrownBy(
            () ->
                rules(
                    """
                    type: object
                    x-kubernetes-validations: [{rule: "self.replicas >"}]
                    """))
        .hasMessageStartingWith("the root: rule does not compile");
  }

  private static CelValidationRules rules(String schemaYaml) {
    return new CelValidationRules(yaml(schemaYaml));
  }

  private static JsonNode yaml(String text) {
    try {
      return YAML.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
