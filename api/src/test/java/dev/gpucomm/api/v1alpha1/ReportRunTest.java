package dev.gpucomm.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportRunTest {
  @Test
  void aStampedReportIsOfTheRunItNames() {
    assertThat(ReportRun.of(results(Map.of(ReportRun.ANNOTATION, "2")))).hasValue(2);
  }

  @Test
  void anUnstampedReportIsOfNoRunInParticular() {
    assertThat(ReportRun.of(results(Map.of()))).isEmpty();
    assertThat(ReportRun.of(new ConfigMapBuilder().withNewMetadata().endMetadata().build()))
        .isEmpty();
  }

  @Test
  void aStampThatIsNoRunsNumberIsNoStamp() {
    for (String stamp : new String[] {"", "-1", "+1", " 1", "1.0", "one", "99999999999"}) {
      assertThat(ReportRun.of(results(Map.of(ReportRun.ANNOTATION, stamp))))
          .as("stamp '%s'", stamp)
          .isEmpty();
    }
  }

  @Test
  void thePodsLabelAndTheReportsStampAreOneKey() {
    assertThat(ReportRun.ANNOTATION).isEqualTo("gpucomm.dev/restart-attempt");
  }

  private static ConfigMap results(Map<String, String> annotations) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName("ar-tp4-results")
        .withAnnotations(annotations)
        .endMetadata()
        .build();
  }
}
