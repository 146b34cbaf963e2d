package dev.gpucomm.runtime.hostir.programs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.runtime.collective.cuda.CudaBackend;
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
 * The programs on one GPU of this host: with and without their passes they must give the same,
 * exact-within-bound results, with real CUDA streams and events, cuBLAS matmuls and NCCL. One rank
 * only: the CUDA communicator numbers its rendezvous keys per process, so ranks as threads of one
 * JVM cannot build communicators together; several GPUs are exercised by {@code gpucomm run} on the
 * examples, one process per rank.
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
    int worldSize = 1;
    ProgramSettings settings =
        ProgramSettings.resolve(
            TestPrograms.spec(name, 2048, 1024, 1024, 4)
                .withPasses(passes)
                .withStreams(2)
                .withWarmupIterations(1)
                .withIterations(3),
            DeviceKind.CUDA,
            worldSize);

    List<ProgramResult> reports = ProgramWorld.run(BACKEND, worldSize, settings);

    for (ProgramResult report : reports) {
      assertThat(report.validated()).as(report.ranks().toString()).isTrue();
      assertThat(report.times().pipelinedMillis()).isPositive();
      assertThat(report.times().unpipelinedMillis()).isPositive();
      int iterations = name == ProgramName.ROW_PARALLEL_LINEAR ? 4 : worldSize;
      assertThat(report.workerStreams()).isEqualTo(Math.min(2, iterations));
    }
  }
}
