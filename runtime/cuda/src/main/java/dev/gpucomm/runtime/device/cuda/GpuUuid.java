package dev.gpucomm.runtime.device.cuda;

import java.util.HexFormat;

/** Writes a CUDA device UUID as nvidia-smi and the NVIDIA device plugin name GPUs. */
final class GpuUuid {
  private GpuUuid() {}

  /** "GPU-" and the 16 bytes as 8-4-4-4-12 lower-case hex digits. */
  static String format(byte[] bytes) {
    if (bytes == null || bytes.length != 16) {
      throw new IllegalArgumentException("a GPU UUID has 16 bytes");
    }
    String hex = HexFormat.of().formatHex(bytes);
    return "GPU-%s-%s-%s-%s-%s"
        .formatted(
            hex.substring(0, 8),
            hex.substring(8, 12),
            hex.substring(12, 16),
            hex.substring(16, 20),
            hex.substring(20));
  }
}
