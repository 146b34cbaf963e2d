package dev.gpucomm.runtime.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.report.ProgressDisplay;
import dev.gpucomm.runtime.spec.JobLoader;
import dev.gpucomm.runtime.spec.LoadedJob;
import dev.gpucomm.runtime.workload.RankContext;
import dev.gpucomm.runtime.workload.WorkloadResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code gpucomm selftest} on two CPU ranks as threads. */
@Timeout(180)
class SelfTestWorkloadTest {
  private static final String JOB =
      """
      apiVersion: gpucomm.dev/v1alpha1
      kind: CommJob
      metadata: {name: selftest}
      spec:
        worldSize: 2
        ranksPerPod: 2
        device: cpu
        workload:
          kind: benchmark
          benchmark: {dtype: fp32, sizes: [1024], algorithms: [auto], iterations: 1, warmupIterations: 1}
      """;

  /**
   * With a 144 KiB staging buffer the fused two-shot (and in fp32 the one-shot) cannot stage the
   * 301-token cases, which only rank 0's report learns of; the plans after them must still give
   * both ranks the same inputs (they once drew their seed from the count of cases run, and every
   * later case failed).
   */
  @Test
  void fusedCasesThatCannotRunOnOneSizeLeaveTheLaterCasesPassing() {
    List<WorkloadResult> results = selftest(144 << 10);

    String report = results.getFirst().summaryMarkdown();
    assertThat(report).contains("not run here").contains("selftest passed: ");
    assertThat(results.get(1).isEmpty()).as("rank 1 reports nothing").isTrue();
  }

  /**
   * With a staging buffer smaller than its larger sizes, the selftest's all-reduce runs them in
   * passes through the buffer, and checks them as it checks the others.
   */
  @Test
  void allReduceSizesAboveTheStagingBufferAreCheckedInPasses() {
    String report = selftest(16 << 10).getFirst().summaryMarkdown();

    List<String> allReduceRows =
        report.lines().filter(line -> line.startsWith("| allreduce | ")).toList();
    assertThat(allReduceRows).hasSize(3).allSatisfy(row -> assertThat(row).endsWith("| 4 | ok |"));
    assertThat(report).contains("selftest passed: ");
  }

  private static List<WorkloadResult> selftest(int stagingBytes) {
    LoadedJob job = new JobLoader().load(JOB, "job.yaml");
    return ThreadRanks.run(
        2,
        2,
        config -> config.withBufferSizes(stagingBytes, 4 << 10),
        rank ->
            new SelfTestWorkload()
                .run(
                    new RankContext(
                        job,
                        new RankTopology(rank.rank(), 2, rank.rank(), 2),
                        rank.device(),
                        rank.communicator(),
                        rank.store(),
                        Duration.ofSeconds(30),
                        ProgressDisplay.silent(),
                        false)));
  }
}
