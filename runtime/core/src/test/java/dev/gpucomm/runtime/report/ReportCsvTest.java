package dev.gpucomm.runtime.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.report.BusBandwidth;
import dev.gpucomm.api.v1alpha1.report.Reports;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportCsvTest {
  /** Parses the CSV into one map per row, header name → cell, checking every row's width. */
  static List<Map<String, String>> parse(String csv) {
    List<String> lines = csv.lines().toList();
    String[] header = lines.getFirst().split(",", -1);
    return lines.stream()
        .skip(1)
        .map(
            line -> {
              String[] cells = line.split(",", -1);
              assertThat(cells).as(line).hasSameSizeAs(header);
              Map<String, String> row = new HashMap<>();
              for (int i = 0; i < header.length; i++) {
                row.put(header[i], cells[i]);
              }
              return row;
            })
        .toList();
  }

  @Test
  void oneRowPerSizeAndAlgorithm() {
    String csv = ReportCsv.write(Reports.h200());
    List<Map<String, String>> rows = parse(csv);

    assertThat(csv).startsWith(ReportCsv.HEADER + "\n");
    assertThat(Arrays.asList(ReportCsv.HEADER.split(",")))
        .contains(
            "eager_us", "graph_us", "algbw_GBps", "busbw_GBps", "max_rel_error", "chosen", "best");
    assertThat(rows).hasSize(12);
    assertThat(rows.getFirst())
        .containsEntry("collective", "allreduce")
        .containsEntry("dtype", "bf16")
        .containsEntry("world_size", "4")
        .containsEntry("bytes", "524288")
        .containsEntry("tokens", "32")
        .containsEntry("algorithm", "nccl")
        .containsEntry("eager_us", "41.9")
        .containsEntry("graph_us", "16.6")
        .containsEntry("max_rel_error", "0.0039")
        .containsEntry("iterations", "200")
        .containsEntry("chosen", "false")
        .containsEntry("best", "false")
        .containsEntry("in_place", "false");
    assertThat(Double.parseDouble(rows.getFirst().get("busbw_GBps")))
        .isEqualTo(BusBandwidth.busBandwidthGBps(Reports.h200().collective(), 4, 524288, 16.6));
  }

  @Test
  void chosenAndBestAreMarkedPerSize() {
    List<Map<String, String>> rows = parse(ReportCsv.write(Reports.h200()));

    assertThat(rows)
        .filteredOn(row -> row.get("chosen").equals("true"))
        .extracting(row -> row.get("algorithm"))
        .containsOnly("oneshot")
        .hasSize(4);
    assertThat(rows)
        .filteredOn(row -> row.get("best").equals("true"))
        .extracting(row -> row.get("algorithm"))
        .containsOnly("twoshot")
        .hasSize(4);
  }

  @Test
  void valuesNotMeasuredAreEmptyCells() {
    List<Map<String, String>> rows = parse(ReportCsv.write(Reports.cpu()));

    assertThat(rows).allSatisfy(row -> assertThat(row.get("graph_us")).isEmpty());
    assertThat(rows).allSatisfy(row -> assertThat(row.get("tokens")).isEmpty());
    assertThat(rows)
        .filteredOn(row -> row.get("best").equals("true"))
        .extracting(row -> row.get("bytes") + " " + row.get("algorithm"))
        .containsExactly("4096 oneshot", "65536 ring");
  }
}
