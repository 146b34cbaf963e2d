package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.hostir.ir.Tensor;
import dev.gpucomm.runtime.numeric.ElementCodec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A rank's program data in host memory: its inputs, generated once and uploaded into every form of
 * the program, and outputs downloaded for validation. Owns the host memory it allocates.
 */
final class HostData implements AutoCloseable {
  private static final int BLOCK = 1 << 16;

  private final Arena arena = Arena.ofShared();
  private final List<MemorySegment> inputs = new ArrayList<>();

  /** Generates rank {@code rank}'s inputs of {@code program}. */
  HostData(HostProgram program, List<Tensor> inputTensors, int rank) {
    float[] block = new float[BLOCK];
    for (int input = 0; input < inputTensors.size(); input++) {
      Tensor tensor = inputTensors.get(input);
      ElementCodec codec = ElementCodec.of(tensor.dtype());
      MemorySegment segment = arena.allocate(tensor.localBytes(), 64);
      long elements = tensor.localElements();
      for (long start = 0; start < elements; start += BLOCK) {
        int length = (int) Math.min(BLOCK, elements - start);
        for (int index = 0; index < length; index++) {
          block[index] = program.input(input, rank, start + index);
        }
        codec.store(block, 0, segment, start, length);
      }
      inputs.add(segment);
    }
  }

  /** Copies the inputs into the device buffers of one form of the program. */
  void upload(Device device, List<DeviceBuffer> buffers) {
    for (int input = 0; input < inputs.size(); input++) {
      device.upload(inputs.get(input), buffers.get(input), 0);
    }
  }

  /** Copies {@code buffer} to new host memory once the work on {@code stream} is done. */
  MemorySegment download(Device device, DeviceBuffer buffer, Stream stream) {
    MemorySegment segment = arena.allocate(buffer.byteSize(), 64);
    device.download(buffer, 0, segment, stream);
    return segment;
  }

  @Override
  public void close() {
    arena.close();
  }
}
