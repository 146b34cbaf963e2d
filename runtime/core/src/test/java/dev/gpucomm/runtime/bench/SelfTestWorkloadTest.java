package dev.gpucomm.runtime.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.report.ProgressDisplay;
import dev.gpucomm.runtime.spec.JobLoader;
import dev.gpucomm.runtime.spec.LoadedJob;
import dev.gpucomm.runtime.testing.ForwardingCommunicator;
import dev.gpucomm.runtime.workload.RankContext;
import dev.gpucomm.runtime.workload.WorkloadResult;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
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
    assertThat(report).contains("| allreduce + allreduceResidualRmsNorm (decode shape) | bf16 |");
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

  /**
   * A communicator without peer memory for its other collectives (a CUDA one whose ranks cannot map
   * each other's memory runs them on NCCL) reports no limit for them, and the selftest checks them
   * at every size, the sizes falling across the gather kernels included.
   */
  @Test
  void collectivesWithoutPeerMemoryAreCheckedAtEverySize() {
    String report = selftest(16 << 10, WithoutPeerMemory::new).getFirst().summaryMarkdown();

    List<String> otherRows =
        report
            .lines()
            .filter(line -> line.startsWith("| ") && !line.startsWith("| allreduce"))
            .filter(line -> !line.startsWith("| collective |"))
            .toList();
    // three dtypes of all-gather, reduce-scatter, broadcast and permute, the two falling rows
    assertThat(otherRows).hasSize(14).allSatisfy(row -> assertThat(row).endsWith("| 4 | ok |"));
    assertThat(report).contains("selftest passed: ");
  }

  private static List<WorkloadResult> selftest(int stagingBytes) {
    return selftest(stagingBytes, communicator -> communicator);
  }

  private static List<WorkloadResult> selftest(
      int stagingBytes, UnaryOperator<Communicator> communicatorOfRank) {
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
                        communicatorOfRank.apply(rank.communicator()),
                        rank.store(),
                        Duration.ofSeconds(30),
                        ProgressDisplay.silent(),
                        false)));
  }

  /** The CPU communicator with its other collectives on its NCCL stand-in and no peer memory. */
  private static final class WithoutPeerMemory extends ForwardingCommunicator {
    WithoutPeerMemory(Communicator real) {
      super(real);
    }

    @Override
    public Set<Algorithm> algorithms(Collective collective) {
      return switch (collective) {
        case ALLREDUCE, COLLECTIVEPERMUTE -> real.algorithms(collective);
        case ALLGATHER, REDUCESCATTER, BROADCAST -> Set.of(Algorithm.NCCL);
      };
    }

    @Override
    public long maxPeerMemoryBytes(Collective collective) {
      return collective == Collective.ALLREDUCE ? real.maxPeerMemoryBytes(collective) : 0;
    }
  }
}
