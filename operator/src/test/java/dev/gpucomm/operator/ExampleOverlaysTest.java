package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The pod template overlays of the example jobs are ones the operator accepts. */
class ExampleOverlaysTest {
  private static final Path EXAMPLES =
      Path.of(System.getProperty("gpucomm.repo", ".."), "examples");

  @Test
  void everyExampleTemplatePassesTheOperatorsOverlayCheck() throws IOException {
    List<Path> files;
    try (Stream<Path> listing = Files.list(EXAMPLES)) {
      files = listing.filter(file -> file.toString().endsWith(".yaml")).sorted().toList();
    }
    KubernetesSerialization serialization = new KubernetesSerialization();
    List<String> problems = new ArrayList<>();
    int templates = 0;
    for (Path file : files) {
      CommJob job = serialization.unmarshal(Files.readString(file), CommJob.class);
      if (job.getSpec().getTemplate() != null) {
        templates++;
        new TemplateOverlayValidator()
            .problems(job.getSpec().getTemplate(), job.getSpec().getRanksPerPod(), 16L << 30)
            .forEach(problem -> problems.add(file.getFileName() + ": " + problem));
      }
    }
    assertThat(templates).as("examples with a template").isGreaterThanOrEqualTo(3);
    assertThat(problems).isEmpty();
  }
}
