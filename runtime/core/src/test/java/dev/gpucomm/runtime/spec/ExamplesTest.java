package dev.gpucomm.runtime.spec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every example job in examples/ loads and validates. */
class ExamplesTest {
  @Test
  void everyExampleIsAValidJob() throws Exception {
    Path examples = Path.of("..", "..", "examples");
    List<Path> files;
    try (Stream<Path> listing = Files.list(examples)) {
      files = listing.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }

    assertThat(files).hasSizeGreaterThanOrEqualTo(4);
    for (Path file : files) {
      LoadedJob job = new JobLoader().load(file);
      assertThat(job.name())
          .as(file.toString())
          .isEqualTo(
              file.getFileName()
                  .toString()
                  .replace(".yaml", "")
                  .replace("fixed-heuristic", "fixed-twoshot"));
    }
  }
}
