package dev.gpucomm.runtime.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.report.FabricReport;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The header of a fabric sweep's report.md follows the benchmark report's wording rules. */
class FabricMarkdownTest {
  @Test
  void aCpuSweepOnOneRankPerPodNamesItsDeviceOnceAndItsRankInTheSingular() {
    FabricReport report =
        new FabricReport(
            FabricReport.SCHEMA_VERSION,
            "fabric",
            1,
            1,
            "cpu",
            "cpu (2 cores)",
            1 << 20,
            10,
            0.5,
            "2026-11-26T10:00:00Z",
            List.of(),
            List.of(),
            null);

    String md = FabricMarkdown.write(report);

    assertThat(md.lines().findFirst()).hasValue("# fabric sweep · world 1 · 1 rank per pod");
    assertThat(md)
        .contains("Job `fabric` · cpu (2 cores) · 1 MiB per transfer")
        .doesNotContain("cpu (cpu");
  }
}
