package dev.gpucomm.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
            "%s is stale: copy %s over it (./mvnw -pl crds process-classes does the generation)",
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
    assertThat(crd)
        .contains("scope: \"Namespaced\"", "shortNames:", "- \"cj\"", "subresources:", "status: {}");
    assertThat(crd).contains("spec.worldSize must be a multiple of spec.ranksPerPod");
    // Every property in the schema carries a description, so kubectl explain shows them all.
    long properties = crd.lines().filter(l -> l.matches("\\s+type: .*")).count();
    long descriptions = crd.lines().filter(l -> l.matches("\\s+description: .*")).count();
    assertThat(descriptions).isGreaterThanOrEqualTo(properties - 10);
  }
}
