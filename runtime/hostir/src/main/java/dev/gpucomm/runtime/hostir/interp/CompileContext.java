package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.hostir.ir.Program;
import java.util.Set;

/**
 * What the compilers of one interpreter share: the program and its analysis, the rank's device,
 * resources, communicators and SM partition, the IPC protocol (null when no transfer uses it), the
 * post records of the communications and the transport descriptions collected while compiling.
 */
record CompileContext(
    Program program,
    ProgramAnalysis analysis,
    Device device,
    DeviceResources resources,
    RankTopology topology,
    StreamCommunicators communicators,
    SmPartition partition,
    IpcGetProtocol ipc,
    PostRecord[] posts,
    Set<Integer> crossStreamWaits,
    Set<String> transports) {

  /** The post record of communication {@code id}, created on first use. */
  PostRecord record(int id) {
    PostRecord record = posts[id];
    if (record == null) {
      // Events are cheap but not free: record one after posting only when some Wait of this
      // communication may run on another stream.
      record = new PostRecord(resources.eventsByStream(), crossStreamWaits.contains(id));
      posts[id] = record;
    }
    return record;
  }

  /** The communicator of the current stream: its worker's own, or the rank's for main. */
  Communicator communicator(ExecutionState state) {
    int worker = state.current.workerIndex();
    return worker < 0 ? communicators.main() : communicators.forWorker(worker);
  }

  /** {@code value} as a rank of the world, or a failure naming {@code what}. */
  int checkedRank(long value, String what) {
    if (value < 0 || value >= topology.worldSize()) {
      throw new IllegalStateException(
          what + " " + value + " is outside the world of " + topology.worldSize());
    }
    return (int) value;
  }
}
