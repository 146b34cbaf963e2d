package dev.gpucomm.runtime.nccl;

import java.util.Arrays;

/** The 128 bytes that name one NCCL communicator; rank 0 makes it and the others receive it. */
public record NcclUniqueId(byte[] bytes) {
  public static final int BYTES = 128;

  public NcclUniqueId {
    if (bytes.length != BYTES) {
      throw new IllegalArgumentException(
          "an NCCL unique id has " + BYTES + " bytes, got " + bytes.length);
    }
    bytes = bytes.clone();
  }

  @Override
  public byte[] bytes() {
    return bytes.clone();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof NcclUniqueId that && Arrays.equals(bytes, that.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return "NcclUniqueId[" + BYTES + " bytes]";
  }
}
