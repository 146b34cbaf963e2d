package dev.gpucomm.runtime.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.ReportJson;
import dev.gpucomm.api.v1alpha1.report.Reports;
import dev.gpucomm.runtime.testing.FolderNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.SequencedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportWriterTest {
  @TempDir Path folder;

  @Test
  void writesEveryFormatOfABenchmark() throws IOException {
    BenchmarkReport report = Reports.h200();
    Path out = folder.resolve("results");

    List<Path> written = ReportWriter.write(out, report);

    assertThat(written)
        .extracting(path -> path.getFileName().toString())
        .containsExactly("report.json", "report.csv", "report.md", "latency.svg");
    assertThat(FolderNames.of(out))
        .containsExactly("latency.svg", "report.csv", "report.json", "report.md");
    SequencedMap<String, String> rendered = ReportFiles.render(report);
    for (Path file : written) {
      assertThat(Files.readString(file)).isEqualTo(rendered.get(file.getFileName().toString()));
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
          .as(file + " readable by all")
          .isEqualTo("rw-r--r--");
    }
    assertThat(ReportJson.read(out.resolve("report.json"))).isEqualTo(report);
  }

  @Test
  void aProgramGetsJsonAndMarkdown() throws IOException {
    ReportWriter.write(folder, Reports.program());

    assertThat(FolderNames.of(folder)).containsExactly("report.json", "report.md");
  }

  @Test
  void aFailedWriteLeavesNothingBehindAndOldFilesUntouched() throws IOException {
    Files.writeString(folder.resolve("report.json"), "the previous report");
    SequencedMap<String, String> files = ReportFiles.render(Reports.h200());
    ReportWriter.ContentWriter failsOnTheThirdFile =
        new ReportWriter.ContentWriter() {
          int calls;

          @Override
          public void write(Path file, String content) throws IOException {
            if (++calls == 3) {
              Files.writeString(
                  file, content.substring(0, 10)); // half-written, then the disk fills
              throw new IOException("No space left on device");
            }
            Files.writeString(file, content, StandardCharsets.UTF_8);
          }
        };

    assertThatThrownBy(() -> ReportWriter.writeAll(folder, files, failsOnTheThirdFile))
        .isInstanceOf(IOException.class)
        .hasMessage("No space left on device");

    assertThat(FolderNames.of(folder)).containsExactly("report.json");
    assertThat(Files.readString(folder.resolve("report.json"))).isEqualTo("the previous report");
  }

  @Test
  void aDirectoryInTheWayFailsBeforeAnythingIsWritten() throws IOException {
    Files.createDirectories(folder.resolve("report.md/keep"));

    assertThatThrownBy(() -> ReportWriter.write(folder, Reports.h200()))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("report.md: a directory is in the way");

    assertThat(FolderNames.of(folder)).containsExactly("report.md");
  }

  @Test
  void anExistingReportIsReplacedWhole() throws IOException {
    ReportWriter.write(folder, Reports.cpu());
    ReportWriter.write(folder, Reports.h200());

    assertThat(ReportJson.read(folder.resolve("report.json"))).isEqualTo(Reports.h200());
    assertThat(FolderNames.of(folder))
        .containsExactly("latency.svg", "report.csv", "report.json", "report.md");
  }
}
