package dev.gpucomm.runtime.device.cpu;

/**
 * Work that runs on a {@link CpuStream}'s worker thread, in stream order: what a kernel is on CUDA.
 * A kernel that throws fails the stream; {@link CpuStream#synchronize()} reports it.
 */
@FunctionalInterface
public interface CpuKernel {
  void run() throws Exception;
}
