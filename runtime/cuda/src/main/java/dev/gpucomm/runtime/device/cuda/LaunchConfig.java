package dev.gpucomm.runtime.device.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.OptionalInt;

/**
 * A {@code CUlaunchConfig} for {@code cuLaunchKernelEx} with its attribute array, allocated once in
 * the caller's arena and rewritten per launch (grid, block, stream), so a launch allocates nothing.
 *
 * <p>With programmatic stream serialization the kernel may be scheduled while the previous kernel
 * on its stream is still finishing (programmatic dependent launch, Hopper and later): the launch
 * latency overlaps the previous kernel's tail. Kernels launched this way must execute {@code
 * griddepcontrol.wait} before touching memory the previous kernel may write; gpucomm's all-reduce
 * kernels do so first thing.
 *
 * <p>A launch priority makes the block scheduler place this kernel's blocks ahead of blocks of
 * lower-priority kernels that are waiting for SMs, such as a matmul queued on another stream.
 *
 * <p>A configuration made {@link #withClusters clustered} launches one-dimensional thread block
 * clusters (Hopper and later) of a size given per launch: the blocks of a cluster run at the same
 * time on one GPU processing cluster and may read each other's shared memory.
 */
public final class LaunchConfig {
  /** CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION. */
  static final int PROGRAMMATIC_STREAM_SERIALIZATION = 6;

  /** CU_LAUNCH_ATTRIBUTE_PRIORITY. */
  static final int PRIORITY = 8;

  /** CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: the value holds three unsigned ints x, y, z. */
  static final int CLUSTER_DIMENSION = 4;

  /** The most attributes a configuration sets. */
  private static final int MAX_ATTRIBUTES = 3;

  /** {@code CUlaunchAttribute}: the id, padding to 8 bytes, a 64-byte value union. */
  static final StructLayout ATTRIBUTE =
      MemoryLayout.structLayout(
              JAVA_INT.withName("id"),
              MemoryLayout.paddingLayout(4),
              MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("value"))
          .withByteAlignment(8);

  /** {@code CUlaunchConfig} (cuda.h, CUDA 12 and 13). */
  static final StructLayout CONFIG =
      MemoryLayout.structLayout(
          JAVA_INT.withName("gridDimX"),
          JAVA_INT.withName("gridDimY"),
          JAVA_INT.withName("gridDimZ"),
          JAVA_INT.withName("blockDimX"),
          JAVA_INT.withName("blockDimY"),
          JAVA_INT.withName("blockDimZ"),
          JAVA_INT.withName("sharedMemBytes"),
          MemoryLayout.paddingLayout(4),
          ADDRESS.withName("hStream"),
          ADDRESS.withName("attrs"),
          JAVA_INT.withName("numAttrs"),
          MemoryLayout.paddingLayout(4));

  static final long GRID_X = CONFIG.byteOffset(MemoryLayout.PathElement.groupElement("gridDimX"));
  static final long BLOCK_X = CONFIG.byteOffset(MemoryLayout.PathElement.groupElement("blockDimX"));
  static final long STREAM = CONFIG.byteOffset(MemoryLayout.PathElement.groupElement("hStream"));

  static final long VALUE = ATTRIBUTE.byteOffset(MemoryLayout.PathElement.groupElement("value"));

  private final MemorySegment config;
  private final boolean programmatic;
  private final OptionalInt priority;

  /** The value of the cluster dimension attribute; null where launches are not clustered. */
  private final MemorySegment clusterDimension;

  private LaunchConfig(Arena arena, boolean programmatic, OptionalInt priority, boolean clustered) {
    this.programmatic = programmatic;
    this.priority = priority;
    this.config = arena.allocate(CONFIG);
    MemorySegment attributes = arena.allocate(ATTRIBUTE, MAX_ATTRIBUTES);
    long valueOffset = VALUE;
    int count = 0;
    if (programmatic) {
      MemorySegment attribute = attributes.asSlice(count++ * ATTRIBUTE.byteSize(), ATTRIBUTE);
      attribute.set(JAVA_INT, 0, PROGRAMMATIC_STREAM_SERIALIZATION);
      attribute.set(JAVA_INT, valueOffset, 1);
    }
    if (priority.isPresent()) {
      MemorySegment attribute = attributes.asSlice(count++ * ATTRIBUTE.byteSize(), ATTRIBUTE);
      attribute.set(JAVA_INT, 0, PRIORITY);
      attribute.set(JAVA_INT, valueOffset, priority.getAsInt());
    }
    if (clustered) {
      MemorySegment attribute = attributes.asSlice(count++ * ATTRIBUTE.byteSize(), ATTRIBUTE);
      attribute.set(JAVA_INT, 0, CLUSTER_DIMENSION);
      clusterDimension = attribute.asSlice(valueOffset, 3L * JAVA_INT.byteSize());
      clusterDimension.set(JAVA_INT, 0, 1);
      clusterDimension.set(JAVA_INT, 4, 1);
      clusterDimension.set(JAVA_INT, 8, 1);
    } else {
      clusterDimension = null;
    }
    config.set(JAVA_INT, 4, 1); // gridDimY
    config.set(JAVA_INT, 8, 1); // gridDimZ
    config.set(JAVA_INT, 16, 1); // blockDimY
    config.set(JAVA_INT, 20, 1); // blockDimZ
    config.set(
        ADDRESS, CONFIG.byteOffset(MemoryLayout.PathElement.groupElement("attrs")), attributes);
    config.set(
        JAVA_INT, CONFIG.byteOffset(MemoryLayout.PathElement.groupElement("numAttrs")), count);
  }

  /**
   * A configuration for launches that may overlap the previous kernel's tail on the stream when
   * {@code programmatic}, at {@code priority} when present (a CUDA stream priority: lower numbers
   * are more urgent; see {@link CudaDevice#greatestPriority()}).
   */
  public static LaunchConfig of(Arena arena, boolean programmatic, OptionalInt priority) {
    return new LaunchConfig(arena, programmatic, priority, false);
  }

  /**
   * A configuration like {@link #of} whose launches group the grid into clusters of the size each
   * {@link CudaKernel#launch(int, int, int, dev.gpucomm.runtime.device.Stream, KernelArguments,
   * LaunchConfig) launch} names.
   */
  public static LaunchConfig withClusters(Arena arena, boolean programmatic, OptionalInt priority) {
    return new LaunchConfig(arena, programmatic, priority, true);
  }

  public boolean clustered() {
    return clusterDimension != null;
  }

  public OptionalInt priority() {
    return priority;
  }

  public boolean programmatic() {
    return programmatic;
  }

  /** Writes this launch's grid, block and stream; returns the struct to pass to the driver. */
  MemorySegment prepare(int blocks, int threadsPerBlock, MemorySegment stream) {
    config.set(JAVA_INT, GRID_X, blocks);
    config.set(JAVA_INT, BLOCK_X, threadsPerBlock);
    config.set(ADDRESS, STREAM, stream);
    return config;
  }

  /** Writes a clustered launch's grid, block, cluster size and stream. */
  MemorySegment prepare(int blocks, int threadsPerBlock, int clusterSize, MemorySegment stream) {
    if (clusterDimension == null) {
      throw new IllegalStateException("this launch configuration has no cluster dimension");
    }
    if (clusterSize < 1 || blocks % clusterSize != 0) {
      throw new IllegalArgumentException(
          "a grid of %d blocks is not a whole number of clusters of %d"
              .formatted(blocks, clusterSize));
    }
    clusterDimension.set(JAVA_INT, 0, clusterSize);
    return prepare(blocks, threadsPerBlock, stream);
  }

  /** The struct as the driver reads it (for tests). */
  MemorySegment segment() {
    return config;
  }
}
