package dev.gpucomm.api.v1alpha1.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.SizeSummary;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RankOutliersTest {
  private static final List<RankIdentity> FOUR_NODES =
      List.of(
          identity(0, "node-a"),
          identity(1, "node-b"),
          identity(2, "node-c"),
          identity(3, "node-d"));

  @Test
  void aRankWellBehindItsPeersIsNamedWithItsNodeAsTheOutlier() {
    // given the CPU sweep where oneshot is fastest at 4 KiB and ring at 64 KiB, rank 2 slow at both
    BenchmarkReport report =
        withRanks(
            Reports.cpu(),
            timings(4096, Algorithm.ONESHOT, 60, 61, 95, 59),
            timings(65536, Algorithm.RING, 300, 302, 330, 298),
            20);

    List<SlowRank> slowest = RankOutliers.of(report);

    assertThat(slowest).extracting(SlowRank::rank).containsExactly(2, 2);
    assertThat(slowest).extracting(SlowRank::node).containsExactly("node-c", "node-c");
    assertThat(slowest.get(0).algorithm()).isEqualTo("oneshot");
    assertThat(slowest.get(0).peerMedianMicros()).isEqualTo(60);
    assertThat(slowest.get(0).outlier()).as("95 us against 60 us is 58% behind").isTrue();
    assertThat(slowest.get(1).outlier()).as("330 us against 300 us is 10% behind").isFalse();
    assertThat(RankOutliers.outliers(report)).hasSize(1);
  }

  @Test
  void theThresholdIsTheReportsOwn() {
    BenchmarkReport report =
        withRanks(
            Reports.cpu(),
            timings(4096, Algorithm.ONESHOT, 60, 61, 95, 59),
            timings(65536, Algorithm.RING, 300, 302, 330, 298),
            5);

    assertThat(RankOutliers.outliers(report))
        .extracting(SlowRank::bytes)
        .containsExactly(4096L, 65536L);
  }

  @Test
  void theStatusRowsNameTheSlowestRankAndItsNode() {
    BenchmarkReport report =
        withRanks(
            Reports.cpu(),
            timings(4096, Algorithm.ONESHOT, 60, 61, 95, 59),
            timings(65536, Algorithm.RING, 300, 302, 330, 298),
            20);

    List<SizeSummary> rows = StatusSummary.of(report);

    assertThat(rows.get(0).getSlowestRank()).isEqualTo(2);
    assertThat(rows.get(0).getSlowestNode()).isEqualTo("node-c");
    assertThat(rows.get(0).getSlowestBehindPeersPercent()).isEqualTo(58.3);
    assertThat(rows.get(0).getOutlier()).isTrue();
    assertThat(rows.get(1).getOutlier()).isFalse();
  }

  @Test
  void withOwnTimesTheRankThatHeldTheOthersUpIsNamedThoughItsMedianIsNotTheSlowest() {
    // given three ranks of one ring whose calls all took about 22 ms, because rank 1 was
    // throttled: rank 0's median is the highest by chance, rank 1 spent far more time outside its
    // waits than the others (figures of a real run of this kind)
    BenchmarkReport report =
        withRanks(
            Reports.cpu(),
            ownTimes(65536, Algorithm.RING, new double[] {22685, 22594, 22432}, 2665, 15898, 4893),
            List.of(),
            20);

    SlowRank slowest = RankOutliers.of(report).getFirst();

    assertThat(slowest.rank()).isEqualTo(1);
    assertThat(slowest.node()).isEqualTo("node-b");
    assertThat(slowest.figure()).isEqualTo(RankFigure.OWN_TIME);
    assertThat(slowest.peerMedianMicros()).isEqualTo((2665 + 4893) / 2.0);
    assertThat(slowest.peerCallMicros()).isEqualTo((22685 + 22432) / 2.0);
    assertThat(slowest.behindPeersPercent())
        .as("held each call up by over half its time")
        .isCloseTo(53.7, within(0.05));
    assertThat(slowest.outlier()).isTrue();
  }

  @Test
  void ownTimesThatDifferByLittleAgainstTheCallAreNoOutlier() {
    // given a healthy run whose calls take 7 ms and whose ranks' own time is tens of microseconds:
    // rank 0's is 57 % above the others', but that is half a percent of a call
    BenchmarkReport report =
        withRanks(
            Reports.cpu(),
            ownTimes(65536, Algorithm.RING, new double[] {7243, 7299, 7336}, 97.6, 61.7, 62.7),
            List.of(),
            20);

    SlowRank slowest = RankOutliers.of(report).getFirst();

    assertThat(slowest.rank()).isZero();
    assertThat(slowest.behindPeersPercent()).isCloseTo(0.5, within(0.05));
    assertThat(slowest.outlier()).isFalse();
  }

  @Test
  void aSizeWhereSomeRankHasNoOwnTimeIsJudgedByTheMedians() {
    List<RankTiming> timings =
        new ArrayList<>(ownTimes(4096, Algorithm.ONESHOT, new double[] {60, 61, 95}, 5, 40, 6));
    timings.add(new RankTiming(4096, Algorithm.ONESHOT, 3, 59, 3));
    BenchmarkReport report = withRanks(Reports.cpu(), timings, List.of(), 20);

    SlowRank slowest = RankOutliers.of(report).getFirst();

    assertThat(slowest.figure()).isEqualTo(RankFigure.MEDIAN);
    assertThat(slowest.rank()).isEqualTo(2);
    assertThat(slowest.outlier()).isTrue();
  }

  @Test
  void aReportWithoutPerRankFiguresNamesNoRank() {
    assertThat(RankOutliers.of(Reports.cpu())).isEmpty();
    assertThat(StatusSummary.of(Reports.cpu()))
        .allSatisfy(row -> assertThat(row.getSlowestRank()).isNull());
  }

  @Test
  void perRankFiguresSurviveReportJson() {
    BenchmarkReport report =
        withRanks(
            Reports.cpu(),
            timings(4096, Algorithm.ONESHOT, 60, 61, 95, 59),
            ownTimes(65536, Algorithm.RING, new double[] {300, 302, 330, 298}, 30, 31, 29, 28),
            12.5);

    BenchmarkReport read = (BenchmarkReport) ReportJson.parse(ReportJson.write(report), "test");

    assertThat(read).isEqualTo(report);
    assertThat(read.ranks().get(2).gpuUuid()).isEqualTo("GPU-2");
  }

  @Test
  void aReportWrittenBeforePerRankFiguresReadsWithNone() {
    String old =
        ReportJson.write(Reports.cpu())
            .replaceAll(
                "(?s),\\s*\"ranks\" : \\[ \\],\\s*\"rankTimings\" : \\[ \\],\\s*\"outlierThresholdPercent\" : [0-9.]+",
                "");
    assertThat(old).doesNotContain("rankTimings");

    BenchmarkReport read = (BenchmarkReport) ReportJson.parse(old, "old.json");

    assertThat(read.ranks()).isEmpty();
    assertThat(read.rankTimings()).isEmpty();
    assertThat(read.outlierThresholdPercent()).isEqualTo(20);
  }

  @Test
  void aReportWrittenBeforeOwnTimesReadsWithNoneAndIsJudgedByItsMedians() {
    String old =
        ReportJson.write(
                withRanks(
                    Reports.cpu(),
                    timings(4096, Algorithm.ONESHOT, 60, 61, 95, 59),
                    timings(65536, Algorithm.RING, 300, 302, 330, 298),
                    20))
            .replaceAll(",\\s*\"ownMicros\" : null", "");
    assertThat(old).contains("\"spreadMicros\"").doesNotContain("ownMicros");

    BenchmarkReport read = (BenchmarkReport) ReportJson.parse(old, "old.json");

    assertThat(read.rankTimings()).allSatisfy(t -> assertThat(t.ownMicros()).isNull());
    assertThat(RankOutliers.of(read)).extracting(SlowRank::figure).containsOnly(RankFigure.MEDIAN);
  }

  private static RankIdentity identity(int rank, String node) {
    return new RankIdentity(
        rank, "job-" + rank, node, node, "GPU-" + rank, "0000:1" + rank + ":00.0", List.of("eth0"));
  }

  private static List<RankTiming> timings(long bytes, Algorithm algorithm, double... medians) {
    List<RankTiming> timings = new ArrayList<>();
    for (int rank = 0; rank < medians.length; rank++) {
      timings.add(new RankTiming(bytes, algorithm, rank, medians[rank], medians[rank] / 20));
    }
    return timings;
  }

  /** Per rank, its median (from {@code medians}) and its own time per call. */
  private static List<RankTiming> ownTimes(
      long bytes, Algorithm algorithm, double[] medians, double... ownMicros) {
    List<RankTiming> timings = new ArrayList<>();
    for (int rank = 0; rank < ownMicros.length; rank++) {
      timings.add(
          new RankTiming(
              bytes, algorithm, rank, medians[rank], medians[rank] / 20, ownMicros[rank]));
    }
    return timings;
  }

  private static BenchmarkReport withRanks(
      BenchmarkReport report, List<RankTiming> first, List<RankTiming> second, double threshold) {
    List<RankTiming> all = new ArrayList<>(first);
    all.addAll(second);
    return report.withRanks(FOUR_NODES, all, threshold);
  }
}
