package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.device.DeviceBuffer;
import java.util.Arrays;

/** What changes while a program runs: loop indices, tensor buffers and the current stream. */
final class ExecutionState {
  final int rank;
  final long[] loopIndices;
  final DeviceBuffer[] tensors;
  final StreamSlot[] streamVariables;
  StreamSlot current;

  /** Where traced statements record their events; null for an ordinary run. */
  Timeline timeline;

  ExecutionState(int rank, int loopSlots, int tensorSlots, int streamSlots) {
    this.rank = rank;
    this.loopIndices = new long[loopSlots];
    this.tensors = new DeviceBuffer[tensorSlots];
    this.streamVariables = new StreamSlot[streamSlots];
  }

  /** Clears what one run set, keeping the buffers bound to program inputs. */
  void reset(StreamSlot main) {
    Arrays.fill(streamVariables, null);
    current = main;
  }

  DeviceBuffer tensor(int id, String name) {
    DeviceBuffer buffer = tensors[id];
    if (buffer == null) {
      throw new IllegalStateException(name + " is used before it has memory");
    }
    return buffer;
  }
}
