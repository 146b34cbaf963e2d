package dev.gpucomm.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

/** spec.template as the operator's informer reads it from the API server. */
class PodTemplateReaderTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private static CommJob read(String template) {
    return SERIALIZATION.unmarshal(
        "{\"apiVersion\":\"gpucomm.dev/v1alpha1\",\"kind\":\"CommJob\",\"metadata\":{\"name\":\"j\"},"
            + "\"spec\":{\"worldSize\":2,\"template\":"
            + template
            + "}}",
        CommJob.class);
  }

  @Test
  void aQuantityThatCannotBeReadLeavesTheJobReadableAndSaysWhere() {
    CommJob job =
        read("{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"memory\":\"\"}}}]}}");

    assertThat(job.getSpec().getWorldSize()).isEqualTo(2);
    assertThat(job.getSpec().getTemplate())
        .isInstanceOfSatisfying(
            UnreadablePodTemplate.class,
            unreadable ->
                assertThat(unreadable.problemUnder("spec.template"))
                    .isEqualTo(
                        "spec.template.spec.containers[0].resources.limits.memory: cannot be read"
                            + " (Invalid quantity string format passed)"));
  }

  @Test
  void theReasonSurvivesACopyWrittenOutAndReadBack() {
    CommJob job =
        read("{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"1e5x\"}}}]}}");

    CommJob copy = SERIALIZATION.unmarshal(SERIALIZATION.asJson(job), CommJob.class);

    assertThat(copy.getSpec().getTemplate())
        .isInstanceOfSatisfying(
            UnreadablePodTemplate.class,
            unreadable ->
                assertThat(unreadable.problemUnder("t"))
                    .isEqualTo(
                        ((UnreadablePodTemplate) job.getSpec().getTemplate()).problemUnder("t"))
                    .startsWith("t.spec.containers[0].resources.limits.cpu: cannot be read ("));
  }

  @Test
  void aReadableTemplateIsReadAsItIs() {
    CommJob job =
        read("{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"memory\":\"16Gi\"}}}]}}");

    assertThat(job.getSpec().getTemplate()).isNotInstanceOf(UnreadablePodTemplate.class);
    assertThat(
            job.getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .getFirst()
                .getResources()
                .getLimits()
                .get("memory")
                .toString())
        .isEqualTo("16Gi");
    assertThat(SERIALIZATION.asJson(job)).contains("\"memory\":\"16Gi\"");
  }
}
