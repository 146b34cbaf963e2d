package dev.gpucomm.runtime.hostir;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Matmul;
import dev.gpucomm.runtime.device.ShareableBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cpu.CpuDevice;
import dev.gpucomm.runtime.testing.ForwardingDevice;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A device that counts what it creates and passes everything on; closing leaves it open. It can
 * claim a number of multiprocessors, so that a CPU device stands in for a GPU whose SMs a program
 * partitions, and it counts limited matmul products by their limit.
 */
public final class CountingDevice extends ForwardingDevice {
  private final int multiprocessors;
  public final AtomicInteger allocations = new AtomicInteger();
  public final AtomicInteger streams = new AtomicInteger();
  public final AtomicInteger events = new AtomicInteger();
  public final AtomicInteger matmuls = new AtomicInteger();

  /**
   * When the wrapped device is a CPU device: when each limited product ran on its stream's worker,
   * {start, end} in nanoseconds, in the order the products were posted.
   */
  public final List<long[]> limitedRuns = new CopyOnWriteArrayList<>();

  /** The same for every product, limited or not. */
  public final List<long[]> runs = new CopyOnWriteArrayList<>();

  /** Products by the multiprocessors they were limited to; unlimited ones are not in it. */
  public final Map<Integer, AtomicInteger> limitedMatmuls = new ConcurrentHashMap<>();

  public CountingDevice(Device delegate) {
    this(delegate, delegate.multiprocessors());
  }

  public CountingDevice(Device delegate, int multiprocessors) {
    super(delegate);
    this.multiprocessors = multiprocessors;
  }

  @Override
  public int multiprocessors() {
    return multiprocessors;
  }

  @Override
  public DeviceBuffer allocate(long bytes) {
    allocations.incrementAndGet();
    return real.allocate(bytes);
  }

  @Override
  public ShareableBuffer allocateShareable(long bytes) {
    allocations.incrementAndGet();
    return real.allocateShareable(bytes);
  }

  @Override
  public Stream createStream() {
    streams.incrementAndGet();
    return real.createStream();
  }

  @Override
  public Event createEvent() {
    events.incrementAndGet();
    return real.createEvent();
  }

  @Override
  public Matmul matmul() {
    return new CountingMatmul(real.matmul(), 0);
  }

  /** Counts products, by limit when {@code limit} is positive, and passes them on. */
  private final class CountingMatmul implements Matmul {
    private final Matmul matmul;
    private final int limit;

    CountingMatmul(Matmul matmul, int limit) {
      this.matmul = matmul;
      this.limit = limit;
    }

    @Override
    public void multiply(
        DeviceBuffer a,
        DeviceBuffer b,
        DeviceBuffer c,
        long m,
        long n,
        long k,
        DType dtype,
        boolean accumulate,
        Stream stream) {
      matmuls.incrementAndGet();
      if (limit > 0) {
        limitedMatmuls.computeIfAbsent(limit, key -> new AtomicInteger()).incrementAndGet();
      }
      if (real instanceof CpuDevice cpu) {
        long[] run = new long[2];
        runs.add(run);
        if (limit > 0) {
          limitedRuns.add(run);
        }
        cpu.streamOf(stream).launch("matmul start", () -> run[0] = System.nanoTime());
        matmul.multiply(a, b, c, m, n, k, dtype, accumulate, stream);
        cpu.streamOf(stream).launch("matmul end", () -> run[1] = System.nanoTime());
        return;
      }
      matmul.multiply(a, b, c, m, n, k, dtype, accumulate, stream);
    }

    @Override
    public Matmul limitedTo(int multiprocessors) {
      return new CountingMatmul(matmul.limitedTo(multiprocessors), multiprocessors);
    }
  }
}
