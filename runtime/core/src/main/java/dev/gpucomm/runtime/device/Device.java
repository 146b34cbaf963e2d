package dev.gpucomm.runtime.device;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One accelerator (or the CPU standing in for one) owned by one rank: its memory, streams, events,
 * graphs, matmul and the memory it shares with the other ranks of its node.
 *
 * <p>Every operation that takes a {@link Stream} is asynchronous with respect to the host, as on
 * CUDA; {@link Stream#synchronize()} or an {@link Event} waits for it. Closing the device closes
 * everything it created that is still open, in reverse order.
 */
public interface Device extends AutoCloseable {
  DeviceKind kind();

  /** Index of this device among the node's devices (the rank's LOCAL_RANK on CUDA). */
  int ordinal();

  /** Human-readable model, e.g. "NVIDIA H200" or "cpu (16 cores)". */
  String name();

  /** The GPU's UUID as nvidia-smi prints it ("GPU-…"); empty on the CPU backend. */
  default Optional<String> uuid() {
    return Optional.empty();
  }

  /** The GPU's PCI bus id ("0000:1b:00.0"); empty on the CPU backend. */
  default Optional<String> pciBusId() {
    return Optional.empty();
  }

  /** The CUDA compute capability; empty on the CPU backend. */
  Optional<ComputeCapability> computeCapability();

  /**
   * Streaming multiprocessors of the GPU, what a partition between matmuls and communication
   * splits; 0 on the CPU backend, which has none.
   */
  int multiprocessors();

  /**
   * Device memory free for new allocations now, when the device can say: a job checks its buffers
   * fit before allocating any. Empty where device memory is host memory (the CPU backend), whose
   * room the launcher checks instead.
   */
  default OptionalLong freeMemoryBytes() {
    return OptionalLong.empty();
  }

  /** Device memory visible to this rank only. */
  DeviceBuffer allocate(long bytes);

  /**
   * Device memory that other ranks of the node can map through {@link #openPeer}: cuMemAlloc'd
   * memory with a CUDA IPC handle, or a shared-memory file under /dev/shm on the CPU backend.
   */
  ShareableBuffer allocateShareable(long bytes);

  /** Maps a buffer another rank of this node exported. Mappings are cached by handle bytes. */
  DeviceBuffer openPeer(IpcHandle handle);

  /** The stream work goes to when no other is named (CUDA's legacy default stream is not used). */
  Stream defaultStream();

  Stream createStream();

  Event createEvent();

  /** Copies {@code bytes} between device buffers (which may be peer mappings), in stream order. */
  void copy(
      DeviceBuffer dst,
      long dstOffset,
      DeviceBuffer src,
      long srcOffset,
      long bytes,
      Stream stream);

  /** Copies host memory into a device buffer and waits until the copy is done. */
  void upload(MemorySegment host, DeviceBuffer dst, long dstOffset);

  /** Copies device memory to the host after all work queued on {@code stream} has finished. */
  void download(DeviceBuffer src, long srcOffset, MemorySegment host, Stream stream);

  /** Fills {@code bytes} bytes of a buffer with a byte value, in stream order. */
  void fill(DeviceBuffer dst, long dstOffset, long bytes, byte value, Stream stream);

  /**
   * Records everything {@code body} enqueues on {@code stream} into a graph instead of running it;
   * the graph replays the same work with the same arguments.
   */
  Graph capture(Stream stream, Runnable body);

  /** Matrix products on this device. */
  Matmul matmul();

  @Override
  void close();
}
