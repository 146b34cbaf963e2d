package dev.gpucomm.runtime.hostir;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.ProgramSpec;
import dev.gpucomm.runtime.hostir.ir.HostIrPrinter;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.passes.PassOptions;
import dev.gpucomm.runtime.hostir.passes.Passes;
import dev.gpucomm.runtime.hostir.programs.HostProgram;
import dev.gpucomm.runtime.hostir.programs.ProgramSettings;

/**
 * The text of {@code gpucomm run --dump-ir}: a job's host program before its passes and after each
 * of them, in nvFuser's {@code %HostIrContainer} form. Building and rewriting the program needs no
 * device, so the dump can be printed before any rank starts.
 */
public final class HostIrDump {
  private HostIrDump() {}

  /**
   * The dump of the program a job with {@code spec} runs on {@code worldSize} ranks of {@code
   * device}.
   *
   * @throws dev.gpucomm.runtime.hostir.programs.ProgramSpecException when the spec cannot run
   */
  public static String of(ProgramSpec spec, DeviceKind device, int worldSize) {
    ProgramSettings settings = ProgramSettings.resolve(spec, device, worldSize);
    HostProgram program = HostProgram.of(settings, worldSize);
    return beforeAndAfter(
        program.build(),
        Passes.of(settings.passes(), new PassOptions(settings.streams())),
        settings.name().wireName() + " on " + worldSize + (worldSize == 1 ? " rank" : " ranks"));
  }

  /** {@code program} before {@code passes} and after each one, headed by comment lines. */
  public static String beforeAndAfter(Program program, Passes passes, String title) {
    StringBuilder text = new StringBuilder();
    text.append("// ").append(title).append(", before passes\n");
    text.append(HostIrPrinter.print(program));
    for (Passes.Step step : passes.steps(program)) {
      text.append("\n// after ").append(step.pass().wireName());
      if (!step.changed()) {
        text.append(" (nothing to rewrite: unchanged)");
      }
      text.append('\n').append(HostIrPrinter.print(step.program()));
    }
    return text.toString();
  }
}
