package dev.gpucomm.runtime.device;

/** Device memory with a handle that other ranks of the node can open (CUDA IPC or /dev/shm). */
public interface ShareableBuffer extends DeviceBuffer {
  /** The handle to send to peers through the rendezvous store. */
  IpcHandle handle();
}
