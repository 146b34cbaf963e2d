package dev.gpucomm.runtime.device.cuda;

import dev.gpucomm.runtime.device.Stream;
import java.lang.foreign.MemorySegment;

/** One kernel of a loaded module, launched through the FFM hot path with prepared arguments. */
public final class CudaKernel {
  private final CudaDevice device;
  private final String name;
  private final MemorySegment function;
  private final NativeHandle module;

  CudaKernel(CudaDevice device, String name, JCudaHandles.Function function, NativeHandle module) {
    this.device = device;
    this.name = name;
    this.function = function.segment();
    this.module = module;
  }

  public String name() {
    return name;
  }

  /**
   * Launches a one-dimensional grid on {@code stream}; {@code arguments} stays owned by the caller
   * and may be changed again as soon as this returns (the driver copies the values).
   */
  public void launch(int blocks, int threadsPerBlock, Stream stream, KernelArguments arguments) {
    module.checkOpen();
    device.bind();
    CudaStream cudaStream = CudaDevice.cast(stream, CudaStream.class);
    int result =
        device
            .api()
            .launchKernel(
                function, blocks, threadsPerBlock, 0, cudaStream.segment(), arguments.pointers());
    if (result != 0) {
      device.check(result, "cuLaunchKernel(" + name + ")");
    }
  }

  /**
   * Launches a one-dimensional grid on {@code stream} through {@code cuLaunchKernelEx} with {@code
   * config}'s attributes; {@code config} and {@code arguments} may be reused right away.
   */
  public void launch(
      int blocks,
      int threadsPerBlock,
      Stream stream,
      KernelArguments arguments,
      LaunchConfig config) {
    module.checkOpen();
    device.bind();
    CudaStream cudaStream = CudaDevice.cast(stream, CudaStream.class);
    MemorySegment prepared = config.prepare(blocks, threadsPerBlock, cudaStream.segment());
    int result = device.api().launchKernelEx(prepared, function, arguments.pointers());
    if (result != 0) {
      device.check(result, "cuLaunchKernelEx(" + name + ")");
    }
  }

  /**
   * Launches a one-dimensional grid of one-dimensional clusters of {@code clusterSize} blocks
   * through {@code cuLaunchKernelEx} with {@code config}, which must be {@link
   * LaunchConfig#withClusters clustered}; {@code blocks} must be a multiple of the cluster size.
   */
  public void launch(
      int blocks,
      int threadsPerBlock,
      int clusterSize,
      Stream stream,
      KernelArguments arguments,
      LaunchConfig config) {
    module.checkOpen();
    device.bind();
    CudaStream cudaStream = CudaDevice.cast(stream, CudaStream.class);
    MemorySegment prepared =
        config.prepare(blocks, threadsPerBlock, clusterSize, cudaStream.segment());
    int result = device.api().launchKernelEx(prepared, function, arguments.pointers());
    if (result != 0) {
      device.check(result, "cuLaunchKernelEx(" + name + ", clusters of " + clusterSize + ")");
    }
  }

  @Override
  public String toString() {
    return "kernel " + name;
  }
}
