package dev.gpucomm.runtime.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.report.RankFabric;
import dev.gpucomm.api.v1alpha1.report.Reports;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReportMarkdownTest {
  /** The lines of the section that starts with {@code heading}, up to the next heading. */
  static List<String> section(String markdown, String heading) {
    List<String> lines = markdown.lines().toList();
    int start = lines.indexOf(heading);
    assertThat(start).as("section " + heading).isNotNegative();
    int end = start + 1;
    while (end < lines.size() && !lines.get(end).startsWith("#")) {
      end++;
    }
    return lines.subList(start + 1, end);
  }

  static List<String> tableRows(List<String> section) {
    return section.stream().filter(line -> line.startsWith("|")).toList();
  }

  @Test
  void theLatencyTableHasVllmsLayoutOnGraphTimes() {
    String md = ReportMarkdown.write(Reports.h200());
    List<String> latency = section(md, "## Latency (µs)");

    assertThat(md).startsWith("# allreduce · bf16 · world 4\n");
    assertThat(latency)
        .contains(
            "CUDA-graph replay medians in microseconds (µs) per call where measured; cells marked *"
                + " are eager medians (no graph was measured for them). Tensor Size in MB of 2^20"
                + " bytes.");
    assertThat(tableRows(latency))
        .containsExactly(
            "| Tensor Shape | Tensor Size | nccl | oneshot | twoshot | Best (Speedup vs NCCL) |"
                + " Heuristic choice |",
            "| --- | ---: | ---: | ---: | ---: | --- | --- |",
            "| (32, 8192) | 0.50 MB | 16.6 | 12.0 | 8.9 | twoshot (1.87x) | oneshot (+34.8% vs best) |",
            "| (64, 8192) | 1.00 MB | 20.1 | 17.5 | 11.2 | twoshot (1.79x) | oneshot (+56.3% vs best) |",
            "| (128, 8192) | 2.00 MB | 28.4 | 27.9 | 19.4* | twoshot (1.46x) | oneshot (+43.8% vs"
                + " best) |",
            "| (256, 8192) | 4.00 MB | 41.3 | 48.0 | 26.0 | twoshot (1.59x) | oneshot (+84.6% vs best)"
                + " |");
  }

  @Test
  void aFabricSectionListsTheTransportsOfEachCommunicatorWhereRecorded() {
    RankFabric world =
        new RankFabric(
            "world",
            0,
            List.of(),
            List.of("socket"),
            List.of("eth0"),
            List.of(),
            "inter-node socket via eth0",
            "");
    RankFabric acrossPods =
        new RankFabric(
            "across-pods",
            0,
            List.of(),
            List.of("socket"),
            List.of("eth0"),
            List.of(),
            "inter-node socket via eth0",
            "");

    String md = ReportMarkdown.write(Reports.h200().withFabric(List.of(world, acrossPods)));

    assertThat(section(md, "## Fabric"))
        .contains(
            "- world, rank 0: inter-node socket via eth0",
            "- across-pods, rank 0: inter-node socket via eth0");
    assertThat(ReportMarkdown.write(Reports.h200())).doesNotContain("## Fabric");
  }

  @Test
  void aSecondTableRanksTheEagerTimes() {
    List<String> eager =
        tableRows(section(ReportMarkdown.write(Reports.h200()), "## Eager latency (µs)"));

    assertThat(eager).hasSize(6);
    assertThat(eager.get(2))
        .isEqualTo(
            "| (32, 8192) | 0.50 MB | 41.9 | 15.2 | 10.8 | twoshot (3.88x) | oneshot (+40.7% vs best) |");
    assertThat(String.join("\n", eager)).doesNotContain("*");
  }

  @Test
  void theNcclTestsViewHasSizeCountTypeAndBandwidthsPerAlgorithm() {
    List<String> section = section(ReportMarkdown.write(Reports.h200()), "## nccl-tests view");

    assertThat(section)
        .anySatisfy(
            line ->
                assertThat(line).contains("busbw = algbw × 2(n−1)/n = 1.5 for allreduce at n = 4"));
    assertThat(tableRows(section).getFirst())
        .isEqualTo(
            "| size (B) | count (elements) | type | nccl time (us) | nccl algbw (GB/s) | nccl busbw"
                + " (GB/s) | oneshot time (us) | oneshot algbw (GB/s) | oneshot busbw (GB/s) |"
                + " twoshot time (us) | twoshot algbw (GB/s) | twoshot busbw (GB/s) |");
    // 524288 B in 16.6 µs is 31.58 GB/s; × 1.5 is 47.38.
    assertThat(tableRows(section).get(2))
        .isEqualTo(
            "| 524288 | 262144 | bf16 | 16.6 | 31.58 | 47.38 | 12.0 | 43.69 | 65.54 | 8.9 | 58.91 |"
                + " 88.36 |");
  }

  @Test
  void theHeuristicsReasonsAreListedPerSize() {
    List<String> rows =
        tableRows(
            section(ReportMarkdown.write(Reports.h200()), "## Heuristic decisions (`trtllm`)"));

    assertThat(rows).hasSize(6);
    assertThat(rows.get(2))
        .isEqualTo(
            "| 0.50 MB | oneshot | tokens 32 × hidden 8192 × 2 × world 4 × 2 B / 2^20 = commMB 4.0"
                + " ≤ 64 for world 4 → oneshot |");
  }

  @Test
  void onTheCpuBackendRingIsTheBaselineAndOnlyEagerTimesExist() {
    String md = ReportMarkdown.write(Reports.cpu());
    List<String> latency = section(md, "## Latency (µs)");

    assertThat(md).doesNotContain("## Eager latency").contains("cpu · 4 ranks per pod");
    assertThat(latency.getFirst()).isEmpty();
    assertThat(latency.get(1)).startsWith("Eager medians (one launch per call)");
    assertThat(tableRows(latency))
        .containsExactly(
            "| Tensor Shape | Tensor Size | ring | oneshot | twoshot | Best (Speedup vs ring) |"
                + " Heuristic choice |",
            "| --- | ---: | ---: | ---: | ---: | --- | --- |",
            "| (2048,) | 4 KB | 120.0 | 60.0 | 80.0 | oneshot (2.00x) | ring (+100% vs best) |",
            "| (32768,) | 0.06 MB | 300.0 | 420.0 | 310.0 | ring (1.00x) | ring |");
  }

  @Test
  void graphTimesOfTheCpuBackendAreNotCalledCudaGraphs() {
    SizeResult size =
        new SizeResult(
            4096,
            null,
            Algorithm.RING,
            "fixed → ring",
            List.of(Reports.measured(Algorithm.RING, 4096, 120.0, 90.0)));
    String md = ReportMarkdown.write(Reports.report(List.of(size), "cpu", null));

    assertThat(md)
        .doesNotContain("CUDA-graph")
        .contains(
            "Graph replay (the cpu backend's recorded kernels) medians in microseconds (µs) per"
                + " call.")
        .contains(
            "Times in microseconds: Graph replay (the cpu backend's recorded kernels) medians"
                + " where measured, eager otherwise.");
  }

  @Test
  void theEndOfRunSummaryIsTheLatencyTable() {
    String summary = ReportMarkdown.summary(Reports.h200());

    assertThat(summary).startsWith("### allreduce · bf16 · world 4 · heuristic trtllm\n\n");
    assertThat(tableRows(summary.lines().toList()))
        .isEqualTo(tableRows(section(ReportMarkdown.write(Reports.h200()), "## Latency (µs)")));
  }

  @Test
  void aProgramReportShowsTheTimeSplit() {
    String md = ReportMarkdown.write(Reports.program());

    assertThat(md)
        .startsWith("# Program rowParallelLinear · world 4\n")
        .contains(
            "passes: assignStreams",
            "m×n×k = 8192×8192×8192 · 4 chunks · 3 streams",
            "| pipelined (after the passes) | 2.000 | 1.30x |",
            "| unpipelined | 2.600 | 1.00x |",
            "| matmul alone | 1.500 | |",
            "| communication alone | 1.000 | |",
            "412.3 TFLOP/s",
            "Overlap hid 0.500 ms of the 1.000 ms of communication (50%).",
            "SM partition: pipelined run: matmuls on 100 of 132 SMs, communication limited to 32"
                + " CTAs");
  }
}
