package dev.gpucomm.runtime.hostir.programs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.CommBackend;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.api.v1alpha1.ProgramSpec;
import dev.gpucomm.api.v1alpha1.Shape;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgramSettingsTest {
  @Test
  void onGpusTheDefaultsAreTheSeedsBenchmarkSizes() {
    ProgramSettings row =
        ProgramSettings.resolve(
            new ProgramSpec().withName(ProgramName.ROW_PARALLEL_LINEAR), DeviceKind.CUDA, 4);
    ProgramSettings column =
        ProgramSettings.resolve(
            new ProgramSpec().withName(ProgramName.COLUMN_PARALLEL_LINEAR), DeviceKind.CUDA, 4);

    assertThat(List.of(row.m(), row.n(), row.k())).containsExactly(8192L, 8192L, 8192L);
    assertThat(row.chunks()).isEqualTo(2);
    assertThat(row.passes()).containsExactly(PassName.ASSIGN_STREAMS);
    assertThat(List.of(column.m(), column.n(), column.k())).containsExactly(32768L, 8192L, 16384L);
    assertThat(column.passes())
        .containsExactly(PassName.P2P_RING_PIPELINE, PassName.ASSIGN_STREAMS);
    assertThat(column.dtype()).isEqualTo(DType.BF16);
    assertThat(column.backend()).isEqualTo(CommBackend.NCCL);
    assertThat(List.of(column.streams(), column.warmupIterations(), column.iterations()))
        .containsExactly(3, 3, 20);
  }

  @Test
  void defaultSizesAreRoundedDownToWhatTheWorldDivides() {
    ProgramSettings column =
        ProgramSettings.resolve(
            new ProgramSpec().withName(ProgramName.COLUMN_PARALLEL_LINEAR), DeviceKind.CUDA, 6);

    assertThat(column.m()).isEqualTo(32766L);
  }

  @Test
  void onTheCpuTheDefaultsAreSmall() {
    ProgramSettings row =
        ProgramSettings.resolve(
            new ProgramSpec().withName(ProgramName.ROW_PARALLEL_LINEAR).withChunks(4),
            DeviceKind.CPU,
            3);

    assertThat(List.of(row.m(), row.n(), row.k())).containsExactly(64L, 32L, 48L);
  }

  @Test
  void explicitSizesThatDoNotDivideAreRefusedNamingTheField() {
    ProgramSpec spec =
        new ProgramSpec()
            .withName(ProgramName.ROW_PARALLEL_LINEAR)
            .withShape(new Shape().withM(10L).withN(4L).withK(8L))
            .withChunks(4);

    assertThatThrownBy(() -> ProgramSettings.resolve(spec, DeviceKind.CPU, 2))
        .isInstanceOf(ProgramSpecException.class)
        .hasMessage("spec.workload.program.shape.m (10) must be a multiple of chunks (4)");
  }

  @Test
  void aMissingNameOrANonPositiveCountIsRefusedNamingTheField() {
    assertThatThrownBy(() -> ProgramSettings.resolve(new ProgramSpec(), DeviceKind.CPU, 2))
        .hasMessage(
            "spec.workload.program.name is required: one of rowParallelLinear,"
                + " columnParallelLinear, collectivePermute");
    assertThatThrownBy(
            () ->
                ProgramSettings.resolve(
                    new ProgramSpec().withName(ProgramName.COLLECTIVE_PERMUTE).withStreams(0),
                    DeviceKind.CPU,
                    2))
        .hasMessage("spec.workload.program.streams must be at least 1, got 0");
    assertThatThrownBy(() -> ProgramSettings.resolve(null, DeviceKind.CPU, 2))
        .hasMessage("spec.workload.program is required when workload.kind is program");
  }

  @Test
  void anEmptyPassListMeansTheUnpipelinedProgramOnly() {
    ProgramSettings settings =
        ProgramSettings.resolve(
            new ProgramSpec().withName(ProgramName.ROW_PARALLEL_LINEAR).withPasses(List.of()),
            DeviceKind.CPU,
            2);

    assertThat(settings.passes()).isEmpty();
  }
}
