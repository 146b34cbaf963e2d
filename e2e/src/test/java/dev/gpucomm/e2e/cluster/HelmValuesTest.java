package dev.gpucomm.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.e2e.cluster.HelmValues.ImageReference;
import org.junit.jupiter.api.Test;

class HelmValuesTest {
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
