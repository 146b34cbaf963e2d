package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.cpu.CpuDevice;
import dev.gpucomm.runtime.numeric.ElementCodec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/** Seeded random inputs of ranks, regenerated on the test thread for the reference. */
final class RankData {
  private RankData() {}

  static long seed(int caseIndex, int rank) {
    return 0x9e37_79b9L * (caseIndex + 1) + rank;
  }

  /** A device buffer holding {@code count} random elements drawn from {@code seed}. */
  static DeviceBuffer upload(CpuDevice device, DType dtype, long count, long seed) {
    DeviceBuffer buffer = device.allocate(count * dtype.bytes());
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment host = arena.allocate(Math.max(1, count * dtype.bytes()));
      ElementCodec.of(dtype).fillRandom(host, count, seed);
      device.upload(host.asSlice(0, count * dtype.bytes()), buffer, 0);
    }
    return buffer;
  }

  private static final Map<List<Object>, float[]> CACHE = new ConcurrentHashMap<>();

  /** The values {@link #upload} writes for {@code seed} (shared: do not modify). */
  static float[] values(DType dtype, int count, long seed) {
    return CACHE.computeIfAbsent(List.of(dtype, count, seed), key -> generate(dtype, count, seed));
  }

  private static float[] generate(DType dtype, int count, long seed) {
    ElementCodec codec = ElementCodec.of(dtype);
    SplittableRandom random = new SplittableRandom(seed);
    float[] values = new float[count];
    for (int i = 0; i < count; i++) {
      values[i] = codec.nextValue(random);
    }
    return values;
  }

  /** The bytes of a device buffer after the work queued on the default stream. */
  static byte[] download(CpuDevice device, DeviceBuffer buffer) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment host = arena.allocate(Math.max(1, buffer.byteSize()));
      device.download(buffer, 0, host.asSlice(0, buffer.byteSize()), device.defaultStream());
      return host.asSlice(0, buffer.byteSize()).toArray(ValueLayout.JAVA_BYTE);
    }
  }

  static float[] decode(byte[] bytes, DType dtype) {
    ElementCodec codec = ElementCodec.of(dtype);
    MemorySegment segment = MemorySegment.ofArray(bytes);
    float[] values = new float[bytes.length / dtype.bytes()];
    for (int i = 0; i < values.length; i++) {
      values[i] = codec.read(segment, i);
    }
    return values;
  }
}
