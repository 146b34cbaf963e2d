package dev.gpucomm.runtime.hostir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.api.v1alpha1.ProgramSpec;
import dev.gpucomm.runtime.hostir.programs.ProgramSpecException;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostIrDumpTest {
  @Test
  void theDumpShowsTheProgramBeforeThePassesAndAfterEachOfThem() {
    ProgramSpec spec =
        TestPrograms.spec(ProgramName.COLLECTIVE_PERMUTE, 4, 1, 2, 1)
            .withPasses(List.of(PassName.COLLECTIVE_PERMUTE_ALLGATHER, PassName.ASSIGN_STREAMS))
            .withStreams(2);

    String dump = HostIrDump.of(spec, DeviceKind.CPU, 2);

    assertThat(dump)
        .startsWith("// collectivePermute on 2 ranks, before passes\n%HostIrContainer {")
        .contains("\n// after collectivePermuteAllgather\n%HostIrContainer {")
        .contains("\n// after assignStreams\n%HostIrContainer {");
    assertThat(dump.split("%HostIrContainer \\{", -1)).hasSize(4);
    assertThat(dump.indexOf("type=Allgather"))
        .isLessThan(dump.indexOf("// after collectivePermuteAllgather"));
    assertThat(dump.indexOf("SetCurrentStream to Stream ( i0 % 2 )"))
        .isGreaterThan(dump.indexOf("// after assignStreams"));
  }

  @Test
  void aPassThatFindsNothingToRewriteSaysSo() {
    ProgramSpec spec =
        TestPrograms.spec(ProgramName.ROW_PARALLEL_LINEAR, 8, 4, 4, 2)
            .withPasses(List.of(PassName.BROADCAST_ALLGATHER));

    assertThat(HostIrDump.of(spec, DeviceKind.CPU, 2))
        .contains("// after broadcastAllgather (nothing to rewrite: unchanged)");
  }

  @Test
  void aSpecThatCannotRunIsRefusedWithTheFieldName() {
    ProgramSpec spec = TestPrograms.spec(ProgramName.ROW_PARALLEL_LINEAR, 8, 4, 5, 2);

    assertThatThrownBy(() -> HostIrDump.of(spec, DeviceKind.CPU, 2))
        .isInstanceOf(ProgramSpecException.class)
        .hasMessage("spec.workload.program.shape.k: 5 is not a multiple of spec.worldSize (2)");
  }
}
