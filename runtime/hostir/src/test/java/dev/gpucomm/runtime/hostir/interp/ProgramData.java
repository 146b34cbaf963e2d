package dev.gpucomm.runtime.hostir.interp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.Tensor;
import dev.gpucomm.runtime.hostir.programs.ErrorBound;
import dev.gpucomm.runtime.hostir.programs.ExactValue;
import dev.gpucomm.runtime.hostir.programs.HostProgram;
import dev.gpucomm.runtime.numeric.ElementCodec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Fills a program's inputs on one rank and checks its output against the exact values. */
final class ProgramData {
  private ProgramData() {}

  static void upload(
      HostProgram program, Program form, HostIrInterpreter interpreter, Device device, int rank) {
    try (Arena arena = Arena.ofConfined()) {
      for (int input = 0; input < form.inputs().size(); input++) {
        Tensor tensor = form.inputs().get(input);
        ElementCodec codec = ElementCodec.of(tensor.dtype());
        MemorySegment host = arena.allocate(tensor.localBytes());
        for (long index = 0; index < tensor.localElements(); index++) {
          codec.write(host, index, program.input(input, rank, index));
        }
        device.upload(host, interpreter.buffer(tensor), 0);
      }
    }
  }

  /** Downloads the output once {@code stream} is done and compares every element. */
  static void assertExact(
      HostProgram program,
      Program form,
      HostIrInterpreter interpreter,
      Device device,
      Stream stream,
      int rank) {
    Tensor output = form.outputs().getFirst();
    ElementCodec codec = ElementCodec.of(output.dtype());
    ErrorBound bound = program.errorBound();
    interpreter.synchronize(stream);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment host = arena.allocate(output.localBytes());
      device.download(interpreter.buffer(output), 0, host, stream);
      for (long index = 0; index < output.localElements(); index++) {
        ExactValue exact = program.expected(rank, index);
        assertThat((double) codec.read(host, index))
            .as("rank %d element %d", rank, index)
            .isCloseTo(
                exact.value(),
                org.assertj.core.data.Offset.offset(
                    bound.bound(exact.value(), exact.magnitudeSum())));
      }
    }
  }
}
