package dev.gpucomm.runtime.device.cuda;

import dev.gpucomm.runtime.device.Graph;
import dev.gpucomm.runtime.device.Stream;
import java.lang.foreign.MemorySegment;
import jcuda.driver.CUgraph;
import jcuda.driver.JCudaDriver;

/** A captured and instantiated CUDA graph; replays go through the FFM hot path. */
final class CudaGraph implements Graph {
  private final CudaDevice device;
  private final CUgraph graph;
  private final JCudaHandles.GraphExec exec;
  private final MemorySegment execSegment;
  private final NativeHandle state;

  CudaGraph(CudaDevice device, CUgraph graph, JCudaHandles.GraphExec exec) {
    this.device = device;
    this.graph = graph;
    this.exec = exec;
    this.execSegment = exec.segment();
    this.state =
        new NativeHandle("cuda graph " + execSegment.address() + " on device " + device.ordinal());
  }

  @Override
  public void replay(Stream stream) {
    state.checkOpen();
    device.bind();
    device.check(
        device.api().launchGraph(execSegment, CudaDevice.cast(stream, CudaStream.class).segment()),
        "cuGraphLaunch");
  }

  @Override
  public void close() {
    if (state.markClosed()) {
      device.forget(this);
      device.bind();
      device.check(JCudaDriver.cuGraphExecDestroy(exec), "cuGraphExecDestroy");
      device.check(JCudaDriver.cuGraphDestroy(graph), "cuGraphDestroy");
    }
  }

  @Override
  public String toString() {
    return state.toString();
  }
}
