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
 */
public final class LaunchConfig {
  /** CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION. */
  static final int PROGRAMMATIC_STREAM_SERIALIZATION = 6;

  /** CU_LAUNCH_ATTRIBUTE_PRIORITY. */
  static final int PRIORITY = 8;

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

  private final MemorySegment config;
  private final boolean programmatic;
  private final OptionalInt priority;

  private LaunchConfig(Arena arena, boolean programmatic, OptionalInt priority) {
    this.programmatic = programmatic;
    this.priority = priority;
    this.config = arena.allocate(CONFIG);
    MemorySegment attributes = arena.allocate(ATTRIBUTE, 2);
    long valueOffset = ATTRIBUTE.byteOffset(MemoryLayout.PathElement.groupElement("value"));
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
    return new LaunchConfig(arena, programmatic, priority);
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

  /** The struct as the driver reads it (for tests). */
  MemorySegment segment() {
    return config;
  }
}
