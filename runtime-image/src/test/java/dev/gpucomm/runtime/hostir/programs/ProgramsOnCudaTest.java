package dev.gpucomm.runtime.hostir.programs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.runtime.device.cuda.CudaBackend;
import dev.gpucomm.runtime.hostir.ProgramWorld;
import dev.gpucomm.runtime.hostir.TestPrograms;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The programs on the GPUs of this host, ranks as threads (so IPC between ranks is unavailable and
 * communicators use NCCL): with and without their passes they must give the same, exact-within-
 * bound results, with real CUDA streams for the worker streams.
 */
@Tag("gpu")
class ProgramsOnCudaTest {
  private static final CudaBackend BACKEND = new CudaBackend();

  @BeforeEach
  void needsAGpu() {
    assumeTrue(BACKEND.deviceCount() > 0, "no CUDA device: " + BACKEND.unavailableReason());
  }

  static Stream<Arguments> programs() {
    return Stream.of(
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
  }

  @ParameterizedTest(name = "{0} with {1}")
  @MethodSource("programs")
  void withAndWithoutPassesTheResultsAgree(ProgramName name, List<PassName> passes) {
    int worldSize = Math.min(BACKEND.deviceCount(), 4);
    ProgramSettings settings =
        ProgramSettings.resolve(
            TestPrograms.spec(name, 512L * worldSize, 256, 128L * worldSize, 4)
                .withPasses(passes)
                .withStreams(2)
                .withWarmupIterations(1)
                .withIterations(3),
            DeviceKind.CUDA,
            worldSize);

    List<ProgramReport> reports = ProgramWorld.run(BACKEND, worldSize, settings);

    for (ProgramReport report : reports) {
      assertThat(report.validated()).as(report.ranks().toString()).isTrue();
      assertThat(report.times().pipelinedMillis()).isPositive();
      assertThat(report.times().unpipelinedMillis()).isPositive();
      int iterations = name == ProgramName.ROW_PARALLEL_LINEAR ? 4 : worldSize;
      assertThat(report.workerStreams()).isEqualTo(Math.min(2, iterations));
    }
  }
}
