package dev.gpucomm.runtime.hostir;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.api.v1alpha1.ProgramSpec;
import dev.gpucomm.api.v1alpha1.Shape;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.programs.HostProgram;
import dev.gpucomm.runtime.hostir.programs.ProgramSettings;
import java.util.List;

/** Small programs for tests, built the way a CommJob builds them. */
public final class TestPrograms {
  private TestPrograms() {}

  public static ProgramSpec spec(ProgramName name, long m, long n, long k, int chunks) {
    return new ProgramSpec()
        .withName(name)
        .withShape(new Shape().withM(m).withN(n).withK(k))
        .withChunks(chunks)
        .withDtype(DType.BF16);
  }

  public static HostProgram program(ProgramSpec spec, int worldSize) {
    return HostProgram.of(ProgramSettings.resolve(spec, DeviceKind.CPU, worldSize), worldSize);
  }

  /** The unpipelined program {@code name} of shape (m, n, k) for {@code worldSize} ranks. */
  public static Program unpipelined(
      ProgramName name, int worldSize, long m, long n, long k, int chunks) {
    return program(spec(name, m, n, k, chunks).withPasses(List.<PassName>of()), worldSize).build();
  }
}
