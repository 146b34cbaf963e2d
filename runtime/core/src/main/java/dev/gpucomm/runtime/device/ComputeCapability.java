package dev.gpucomm.runtime.device;

/** A CUDA compute capability such as 9.0 (Hopper) or 10.0 (Blackwell). */
public record ComputeCapability(int major, int minor) implements Comparable<ComputeCapability> {
  public static ComputeCapability parse(String text) {
    String[] parts = text.trim().split("\\.");
    if (parts.length != 2) {
      throw new IllegalArgumentException(
          "compute capability must look like 9.0, got '" + text + "'");
    }
    return new ComputeCapability(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
  }

  @Override
  public int compareTo(ComputeCapability other) {
    return major != other.major
        ? Integer.compare(major, other.major)
        : Integer.compare(minor, other.minor);
  }

  @Override
  public String toString() {
    return major + "." + minor;
  }
}
