package dev.gpucomm.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportRunTest {
  @Test
  void aStampedReportIsOfTheRunItNamesAlone() {
    ConfigMap results = results(Map.of(ReportRun.ANNOTATION, "2"));

    assertThat(ReportRun.of(results)).hasValue(2);
    assertThat(ReportRun.isOf(results, 2)).isTrue();
    assertThat(ReportRun.isOf(results, 1)).isFalse();
    assertThat(ReportRun.isOf(results, 3)).isFalse();
  }

  @Test
  void anUnstampedReportMayBeOfAnyRun() {
    ConfigMap results = results(Map.of());

    assertThat(ReportRun.stamp(results)).isEmpty();
    assertThat(ReportRun.of(results)).isEmpty();
    assertThat(ReportRun.isOf(results, 0)).isTrue();
    assertThat(ReportRun.isOf(results, 4)).isTrue();
    assertThat(ReportRun.isOf(new ConfigMapBuilder().withNewMetadata().endMetadata().build(), 0))
        .isTrue();
  }

  @Test
  void aStampThatIsNoRunsNumberAsRankZeroWritesItIsAnotherRuns() {
    for (String stamp : new String[] {"", "-1", "+1", " 1", "01", "1.0", "one", "9999999999"}) {
      ConfigMap results = results(Map.of(ReportRun.ANNOTATION, stamp));

      assertThat(ReportRun.stamp(results)).as("stamp '%s'", stamp).hasValue(stamp);
      assertThat(ReportRun.of(results)).as("stamp '%s'", stamp).isEmpty();
      assertThat(ReportRun.isOf(results, 1)).as("stamp '%s'", stamp).isFalse();
    }
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
