package dev.gpucomm.runtime.hostir.programs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.CommBackend;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.api.v1alpha1.ProgramSpec;
import dev.gpucomm.api.v1alpha1.report.ProgramReport;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.collective.cpu.CpuBackend;
import dev.gpucomm.runtime.device.cpu.CpuDevice;
import dev.gpucomm.runtime.hostir.CountingDevice;
import dev.gpucomm.runtime.hostir.RankThreads;
import dev.gpucomm.runtime.hostir.TestPrograms;
import dev.gpucomm.runtime.hostir.interp.CommunicatorFactory;
import dev.gpucomm.runtime.hostir.interp.SmPartition;
import dev.gpucomm.runtime.testing.InMemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * rowParallelLinear on CPU ranks whose devices claim 132 multiprocessors, so that the program
 * partitions them as on an H100: what the matmuls and the communicator factory are asked for.
 */
class SmPartitionOnCpuTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final int MULTIPROCESSORS = 132;
  private static final int WORLD = 2;

  /** What one rank's device and communicator factory were asked for. */
  private record RankRun(
      ProgramResult result,
      int matmuls,
      Map<Integer, Integer> limitedMatmuls,
      List<Integer> ctas,
      List<long[]> limitedRuns,
      List<long[]> runs) {}

  @Test
  void
      keeping32SmsForCommunication_limitsPipelinedMatmulsTo100Sms_andWorkerCommunicatorsTo32Ctas() {
    List<RankRun> runs = run(spec().withCommunicationSMs(32));

    for (RankRun run : runs) {
      int limited = run.limitedMatmuls().getOrDefault(100, 0);
      int unlimited = run.matmuls() - limited;
      assertThat(run.limitedMatmuls()).as("limits asked for").containsOnlyKeys(100);
      assertThat(unlimited).as("matmuls of the unpipelined run, on every SM").isPositive();
      assertThat(limited)
          .as(
              "the pipelined run and its compute alone, each run as often as the unpipelined,"
                  + " and two traced pipelined runs")
          .isEqualTo(2 * unlimited + 2 * run.result().chunks());
      assertThat(run.ctas())
          .as("one limited communicator per worker stream")
          .containsExactly(32, 32);
      assertThat(run.result().validated()).isTrue();
      assertThat(run.result().smPartition()).isEqualTo(new SmPartition(132, 100, 32, false));
    }
    ProgramReport report = ProgramReports.of(runs.getFirst().result(), "rpl", WORLD, "host", "t");
    assertThat(report.smPartition())
        .isEqualTo("pipelined run: matmuls on 100 of 132 SMs, communication limited to 32 CTAs");
  }

  @Test
  void serializedMatmuls_runOneAfterAnotherInProgramOrder() {
    // Two worker streams: without the matmul lane, chunk 1's matmul could run beside chunk 0's.
    List<RankRun> runs = run(spec().withCommunicationSMs(32).withSerializeMatmuls(true));

    for (RankRun run : runs) {
      List<long[]> matmuls = run.limitedRuns();
      assertThat(matmuls).hasSizeGreaterThan(2);
      for (int i = 1; i < matmuls.size(); i++) {
        assertThat(matmuls.get(i)[0])
            .as("matmul %d starts after matmul %d ended", i, i - 1)
            .isGreaterThanOrEqualTo(matmuls.get(i - 1)[1]);
      }
      assertThat(run.result().smPartition()).isEqualTo(new SmPartition(132, 100, 32, true));
    }
    ProgramReport report = ProgramReports.of(runs.getFirst().result(), "rpl", WORLD, "host", "t");
    assertThat(report.smPartition())
        .isEqualTo(
            "pipelined run: matmuls on 100 of 132 SMs one after another, communication limited to"
                + " 32 CTAs");
  }

  @Test
  void serializedMatmulsWithoutAPartition_runOneAfterAnotherOnEverySm() {
    List<RankRun> runs = run(spec().withSerializeMatmuls(true));

    for (RankRun run : runs) {
      assertThat(run.limitedMatmuls()).isEmpty();
      assertThat(run.ctas()).containsOnly(CommunicatorFactory.UNLIMITED).hasSize(2);
      List<long[]> matmuls = run.runs();
      assertThat(matmuls).hasSizeGreaterThan(2);
      for (int i = 1; i < matmuls.size(); i++) {
        assertThat(matmuls.get(i)[0])
            .as("matmul %d starts after matmul %d ended", i, i - 1)
            .isGreaterThanOrEqualTo(matmuls.get(i - 1)[1]);
      }
      assertThat(run.result().smPartition()).isEqualTo(SmPartition.IN_ORDER);
    }
    ProgramReport report = ProgramReports.of(runs.getFirst().result(), "rpl", WORLD, "host", "t");
    assertThat(report.smPartition())
        .isEqualTo("pipelined run: matmuls one after another on every SM");
  }

  @Test
  void withoutCommunicationSms_nothingIsLimited() {
    List<RankRun> runs = run(spec());

    for (RankRun run : runs) {
      assertThat(run.matmuls()).isPositive();
      assertThat(run.limitedMatmuls()).isEmpty();
      assertThat(run.ctas()).containsOnly(CommunicatorFactory.UNLIMITED).hasSize(2);
      assertThat(run.result().smPartition()).isNull();
    }
    ProgramReport report = ProgramReports.of(runs.getFirst().result(), "rpl", WORLD, "host", "t");
    assertThat(report.smPartition()).isNull();
  }

  private static ProgramSpec spec() {
    return TestPrograms.spec(ProgramName.ROW_PARALLEL_LINEAR, 16, 8, 4L * WORLD, 4)
        .withBackend(CommBackend.IPC)
        .withPasses(List.of(PassName.ASSIGN_STREAMS))
        .withStreams(2)
        .withWarmupIterations(1)
        .withIterations(2);
  }

  private static List<RankRun> run(ProgramSpec spec) {
    ProgramSettings settings = ProgramSettings.resolve(spec, DeviceKind.CPU, WORLD);
    CpuBackend backend = ProgramsOnCpuTest.backend();
    InMemoryStore store = new InMemoryStore();
    return RankThreads.run(
        WORLD,
        TIMEOUT.multipliedBy(2),
        rank -> {
          RankTopology topology = new RankTopology(rank, WORLD, rank, WORLD);
          List<Integer> ctas = new CopyOnWriteArrayList<>();
          try (CpuDevice cpu = backend.open(rank);
              Communicator communicator = backend.createCommunicator(cpu, store, topology)) {
            CountingDevice device = new CountingDevice(cpu, MULTIPROCESSORS);
            CommunicatorFactory communicators =
                CommunicatorFactory.of(backend, cpu, store, topology);
            ProgramResult result =
                HostIrProgramWorkload.run(
                    settings,
                    device,
                    communicator,
                    (name, maxBlocks) -> {
                      ctas.add(maxBlocks);
                      return communicators.create(name, maxBlocks);
                    },
                    store,
                    topology,
                    TIMEOUT);
            Map<Integer, Integer> limited =
                device.limitedMatmuls.entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey, entry -> entry.getValue().get()));
            return new RankRun(
                result, device.matmuls.get(), limited, ctas, device.limitedRuns, device.runs);
          }
        });
  }
}
