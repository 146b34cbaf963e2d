package dev.gpucomm.runtime.rank;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SiteTest {
  @TempDir Path dir;

  @Test
  void aReportThatCannotBeWrittenSaysWhyAndNotOnlyWhere() throws Exception {
    Path taken = Files.writeString(dir.resolve("report"), "a file where the report should go");

    assertThatThrownBy(() -> new Site.Directory(taken).publish(Map.of("report.json", "{}")))
        .hasMessage("cannot write the report into " + taken + ": already exists");
  }
}
