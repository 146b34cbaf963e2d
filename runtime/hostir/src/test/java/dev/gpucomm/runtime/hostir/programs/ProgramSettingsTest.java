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
import dev.gpucomm.runtime.hostir.interp.SmPartition;
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
        .hasMessage(
            "spec.workload.program.shape.m: 10 is not a multiple of spec.workload.program.chunks (4)");
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

  @Test
  void communicationSmsDefaultToNoPartition() {
    ProgramSettings settings =
        ProgramSettings.resolve(
            new ProgramSpec().withName(ProgramName.ROW_PARALLEL_LINEAR), DeviceKind.CUDA, 4);

    assertThat(settings.communicationSMs()).isZero();
    assertThat(settings.smPartition(132)).isEqualTo(SmPartition.NONE);
  }

  @Test
  void keeping32SmsOfAn132SmGpuLeavesTheMatmuls100() {
    ProgramSettings settings =
        ProgramSettings.resolve(
            new ProgramSpec().withName(ProgramName.ROW_PARALLEL_LINEAR).withCommunicationSMs(32),
            DeviceKind.CUDA,
            4);

    SmPartition partition = settings.smPartition(132);

    assertThat(settings.communicationSMs()).isEqualTo(32);
    assertThat(partition).isEqualTo(new SmPartition(132, 100, 32, false));
    assertThat(partition.description())
        .isEqualTo("matmuls on 100 of 132 SMs, communication limited to 32 CTAs");
  }

  @Test
  void onTheCpuThereIsNothingToPartition() {
    ProgramSettings settings =
        ProgramSettings.resolve(
            new ProgramSpec().withName(ProgramName.ROW_PARALLEL_LINEAR).withCommunicationSMs(32),
            DeviceKind.CPU,
            2);

    assertThat(settings.smPartition(0).partitioned()).isFalse();
  }

  @Test
  void keepingEverySmForCommunicationIsRefusedNamingTheField() {
    ProgramSettings settings =
        ProgramSettings.resolve(
            new ProgramSpec().withName(ProgramName.ROW_PARALLEL_LINEAR).withCommunicationSMs(132),
            DeviceKind.CUDA,
            4);

    assertThatThrownBy(() -> settings.smPartition(132))
        .isInstanceOf(ProgramSpecException.class)
        .hasMessage(
            "spec.workload.program.communicationSMs (132) must leave the matmuls at least 1 of"
                + " the GPU's 132 multiprocessors");
  }

  @Test
  void communicationSmsOutsideTheirRangeAreRefusedNamingTheField() {
    assertThatThrownBy(
            () ->
                ProgramSettings.resolve(
                    new ProgramSpec()
                        .withName(ProgramName.ROW_PARALLEL_LINEAR)
                        .withCommunicationSMs(161),
                    DeviceKind.CUDA,
                    4))
        .hasMessage("spec.workload.program.communicationSMs must be between 0 and 160, got 161");
  }
}
