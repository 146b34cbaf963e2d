package dev.gpucomm.runtime.hostir.programs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.CommBackend;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.api.v1alpha1.ProgramSpec;
import dev.gpucomm.runtime.collective.cpu.CpuBackend;
import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import dev.gpucomm.runtime.hostir.ProgramWorld;
import dev.gpucomm.runtime.hostir.TestPrograms;
import dev.gpucomm.runtime.hostir.interp.TimelineSpan;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every program, with and without its passes, on CPU worlds of 1 to 8 ranks (threads of this JVM,
 * each with its own CPU device and communicators over shared memory): the pipelined result must
 * match the unpipelined one, and both the exact values, on every rank.
 */
class ProgramsOnCpuTest {
  private static final AtomicInteger JOBS = new AtomicInteger();

  static CpuBackend backend() {
    return new CpuBackend(
        CpuBackendConfig.defaults(
                "hostir-test-" + ProcessHandle.current().pid() + "-" + JOBS.incrementAndGet())
            .withBufferSizes(64 << 10, 4 << 10)
            .withWaitTimeout(Duration.ofSeconds(30)));
  }

  static Stream<Arguments> programsAndWorlds() {
    List<Arguments> pipelines =
        List.of(
            Arguments.of(ProgramName.ROW_PARALLEL_LINEAR, List.of(PassName.ASSIGN_STREAMS)),
            Arguments.of(
                ProgramName.COLUMN_PARALLEL_LINEAR,
                List.of(PassName.COLLECTIVE_PERMUTE_ALLGATHER, PassName.ASSIGN_STREAMS)),
            Arguments.of(
                ProgramName.COLUMN_PARALLEL_LINEAR,
                List.of(PassName.BROADCAST_ALLGATHER, PassName.ASSIGN_STREAMS)),
            Arguments.of(
                ProgramName.COLUMN_PARALLEL_LINEAR,
                List.of(PassName.P2P_RING_PIPELINE, PassName.ASSIGN_STREAMS)),
            Arguments.of(
                ProgramName.COLLECTIVE_PERMUTE,
                List.of(PassName.COLLECTIVE_PERMUTE_ALLGATHER, PassName.ASSIGN_STREAMS)));
    return pipelines.stream()
        .flatMap(
            pipeline ->
                IntStream.rangeClosed(1, 8)
                    .mapToObj(
                        worldSize ->
                            Arguments.of(pipeline.get()[0], pipeline.get()[1], worldSize)));
  }

  @ParameterizedTest(name = "{0} with {1} on {2} ranks")
  @MethodSource("programsAndWorlds")
  void withAndWithoutItsPassesTheProgramGivesTheSameExactResult(
      ProgramName name, List<PassName> passes, int worldSize) {
    ProgramSpec spec =
        TestPrograms.spec(name, 8L * worldSize, 8, 4L * worldSize, 4)
            .withPasses(passes)
            .withStreams(3)
            .withDtype(DType.BF16)
            .withWarmupIterations(0)
            .withIterations(1);
    ProgramSettings settings = ProgramSettings.resolve(spec, DeviceKind.CPU, worldSize);

    List<ProgramResult> reports = ProgramWorld.run(backend(), worldSize, settings);

    assertThat(reports).hasSize(worldSize);
    for (ProgramResult report : reports) {
      assertThat(report.validated()).as(report.ranks().toString()).isTrue();
      assertThat(report.ranks()).hasSize(worldSize);
      assertThat(report.ranks())
          .allSatisfy(
              rank -> {
                assertThat(rank.validation().mismatches()).isZero();
                assertThat(rank.validation().exactSamples()).isPositive();
              });
    }
  }

  @ParameterizedTest(name = "{0} in {1}")
  @MethodSource("programsAndTypes")
  void everyElementTypeGivesTheExactResultWithinItsBound(ProgramName name, DType dtype) {
    int worldSize = 3;
    ProgramSpec spec =
        TestPrograms.spec(name, 24, 8, 12, 4)
            .withDtype(dtype)
            .withWarmupIterations(0)
            .withIterations(1);
    ProgramSettings settings = ProgramSettings.resolve(spec, DeviceKind.CPU, worldSize);

    List<ProgramResult> reports = ProgramWorld.run(backend(), worldSize, settings);

    assertThat(reports).allSatisfy(report -> assertThat(report.validated()).isTrue());
    assertThat(reports.getFirst().dtype()).isEqualTo(dtype.wireName());
  }

  static Stream<Arguments> programsAndTypes() {
    return Stream.of(ProgramName.values())
        .flatMap(name -> Stream.of(DType.FP16, DType.FP32).map(dtype -> Arguments.of(name, dtype)));
  }

  @Test
  void theTracedPipelinedRunShowsEachChunksMatmulThenItsAllReduceOnTheChunksStream() {
    int worldSize = 2;
    ProgramSpec spec =
        TestPrograms.spec(ProgramName.ROW_PARALLEL_LINEAR, 16, 8, 4L * worldSize, 4)
            .withPasses(List.of(PassName.ASSIGN_STREAMS))
            .withStreams(2)
            .withWarmupIterations(1)
            .withIterations(2);
    ProgramSettings settings = ProgramSettings.resolve(spec, DeviceKind.CPU, worldSize);

    List<ProgramResult> reports = ProgramWorld.run(backend(), worldSize, settings);

    for (RankResult rank : reports.getFirst().ranks()) {
      List<TimelineSpan> timeline = rank.timeline();
      assertThat(timeline).extracting(TimelineSpan::stream).containsOnly("worker 0", "worker 1");
      for (int chunk = 0; chunk < 4; chunk++) {
        String iteration = "[i0=" + chunk + "]";
        TimelineSpan matmul = only(timeline, "matmul", iteration);
        TimelineSpan allReduce = only(timeline, "allreduce", iteration);
        assertThat(matmul.stream()).isEqualTo("worker " + chunk % 2);
        assertThat(allReduce.stream()).isEqualTo(matmul.stream());
        assertThat(matmul.startMillis()).isLessThanOrEqualTo(matmul.endMillis());
        // one stream runs its work in order: the all-reduce of a chunk follows its matmul
        assertThat(allReduce.startMillis()).isGreaterThanOrEqualTo(matmul.endMillis());
      }
      assertThat(timeline).hasSize(8);
    }
    String trace = ProgramTimelines.chromeTrace(reports.getFirst().ranks());
    assertThat(trace)
        .contains("\"traceEvents\"", "\"thread_name\"", "\"rank 1\"", "\"ph\" : \"X\"");
    assertThat(ProgramSummary.markdown(reports.getFirst()))
        .contains("Timeline of one pipelined run on rank 0", "| worker 1 | matmul ");
  }

  private static TimelineSpan only(List<TimelineSpan> timeline, String kind, String iteration) {
    List<TimelineSpan> found =
        timeline.stream()
            .filter(span -> span.what().startsWith(kind + " ") && span.what().endsWith(iteration))
            .toList();
    assertThat(found).as("%s %s in %s", kind, iteration, timeline).hasSize(1);
    return found.getFirst();
  }

  @ParameterizedTest(name = "on {0} ranks")
  @ValueSource(ints = {2, 4})
  void withTheIpcBackendEachChunkIsAllReducedTwoShotOnItsStreamsOwnCommunicator(int worldSize) {
    ProgramSpec spec =
        TestPrograms.spec(ProgramName.ROW_PARALLEL_LINEAR, 16, 8, 4L * worldSize, 4)
            .withBackend(CommBackend.IPC)
            .withPasses(List.of(PassName.ASSIGN_STREAMS))
            .withStreams(2)
            .withWarmupIterations(1)
            .withIterations(2);
    ProgramSettings settings = ProgramSettings.resolve(spec, DeviceKind.CPU, worldSize);

    List<ProgramResult> reports = ProgramWorld.run(backend(), worldSize, settings);

    for (ProgramResult report : reports) {
      assertThat(report.validated()).isTrue();
      assertThat(report.transports()).containsExactly("Allreduce: twoshot (ipc backend)");
      assertThat(report.extraCommunicators()).isEqualTo(2);
    }
  }
}
