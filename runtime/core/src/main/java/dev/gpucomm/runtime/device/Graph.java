package dev.gpucomm.runtime.device;

/** Work captured once and replayed with one launch (a CUDA graph). */
public interface Graph extends AutoCloseable {
  void replay(Stream stream);

  @Override
  void close();
}
