package dev.gpucomm.runtime.device;

import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;

/**
 * What a peer needs to map a shareable buffer: the backend's opaque handle bytes (64 bytes of CUDA
 * IPC handle, or a shared-memory file name on the CPU backend) for the allocation base, the offset
 * of the buffer inside that allocation and its size.
 */
public record IpcHandle(byte[] handleBytes, long offset, long byteSize) {
  public IpcHandle {
    handleBytes = handleBytes.clone();
    if (offset < 0 || byteSize < 0) {
      throw new IllegalArgumentException("negative offset or size in IPC handle");
    }
  }

  @Override
  public byte[] handleBytes() {
    return handleBytes.clone();
  }

  /** A text form that travels through the rendezvous store: base64(handle):offset:size. */
  public String encode() {
    return Base64.getEncoder().encodeToString(handleBytes) + ":" + offset + ":" + byteSize;
  }

  public static IpcHandle decode(String text) {
    String[] parts = text.split(":");
    if (parts.length != 3) {
      throw new IllegalArgumentException("malformed IPC handle '" + text + "'");
    }
    try {
      return new IpcHandle(
          Base64.getDecoder().decode(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("malformed IPC handle '" + text + "'", e);
    }
  }

  /** The cache key of the allocation this handle points into. */
  public String allocationKey() {
    return HexFormat.of().formatHex(handleBytes);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof IpcHandle that
        && Arrays.equals(handleBytes, that.handleBytes)
        && offset == that.offset
        && byteSize == that.byteSize;
  }

  @Override
  public int hashCode() {
    return 31 * (31 * Arrays.hashCode(handleBytes) + Long.hashCode(offset))
        + Long.hashCode(byteSize);
  }

  @Override
  public String toString() {
    return "IpcHandle["
        + allocationKey().substring(0, Math.min(16, 2 * handleBytes.length))
        + "…+"
        + offset
        + ", "
        + byteSize
        + " B]";
  }
}
