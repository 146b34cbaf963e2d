package dev.gpucomm.runtime.device.cpu;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * This process's CPU affinity, through Linux's {@code sched_getaffinity} and {@code
 * sched_setaffinity}. Affinity belongs to each thread, and a new thread inherits its creator's, so
 * binding the process means binding every thread it has at the time.
 */
final class LinuxCpuAffinity {
  private static final int EINVAL = 22;
  private static final int ESRCH = 3;

  /** Room for 1024 CPUs, glibc's {@code cpu_set_t}; doubled while the kernel asks for more. */
  private static final int FIRST_MASK_BYTES = 128;

  private static final int MAX_MASK_BYTES = 1 << 16;

  private LinuxCpuAffinity() {}

  /** Thrown when the affinity cannot be read or set; the message says which call and why. */
  static final class AffinityException extends Exception {
    AffinityException(String message) {
      super(message);
    }
  }

  /** The CPUs this thread may run on, ascending. */
  static List<Integer> allowedCpus() throws AffinityException {
    Calls calls = Calls.load();
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(calls.stateLayout);
      for (int bytes = FIRST_MASK_BYTES; bytes <= MAX_MASK_BYTES; bytes *= 2) {
        MemorySegment mask = arena.allocate(bytes, Long.BYTES);
        int result = calls.getAffinity(state, 0, bytes, mask);
        if (result == 0) {
          return cpusOf(mask);
        }
        int errno = calls.errno(state);
        if (errno != EINVAL) {
          throw new AffinityException("sched_getaffinity failed with errno " + errno);
        }
      }
      throw new AffinityException("sched_getaffinity: more than " + MAX_MASK_BYTES * 8 + " CPUs");
    }
  }

  /** Binds every thread of this process to {@code cpus}; later threads inherit them. */
  static void bindProcess(List<Integer> cpus) throws AffinityException {
    Calls calls = Calls.load();
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(calls.stateLayout);
      int highest = cpus.getLast();
      long bytes = Math.max(FIRST_MASK_BYTES, (highest / Long.SIZE + 1) * (long) Long.BYTES);
      MemorySegment mask = arena.allocate(bytes, Long.BYTES);
      for (int cpu : cpus) {
        long word = mask.getAtIndex(JAVA_LONG, cpu / Long.SIZE);
        mask.setAtIndex(JAVA_LONG, cpu / Long.SIZE, word | 1L << (cpu % Long.SIZE));
      }
      String target = "CPUs " + CpuList.format(cpus);
      // This thread first: if it cannot be bound, nothing has changed.
      if (calls.setAffinity(state, 0, bytes, mask) != 0) {
        throw new AffinityException(
            "sched_setaffinity to " + target + " failed with errno " + calls.errno(state));
      }
      for (int thread : threadIds()) {
        if (calls.setAffinity(state, thread, bytes, mask) != 0) {
          int errno = calls.errno(state);
          if (errno != ESRCH) { // ESRCH: the thread ended meanwhile
            throw new AffinityException(
                "sched_setaffinity of thread "
                    + thread
                    + " to "
                    + target
                    + " failed with errno "
                    + errno);
          }
        }
      }
    }
  }

  private static List<Integer> cpusOf(MemorySegment mask) {
    List<Integer> cpus = new ArrayList<>();
    long words = mask.byteSize() / Long.BYTES;
    for (int word = 0; word < words; word++) {
      long bits = mask.getAtIndex(JAVA_LONG, word);
      while (bits != 0) {
        cpus.add(word * Long.SIZE + Long.numberOfTrailingZeros(bits));
        bits &= bits - 1;
      }
    }
    return List.copyOf(cpus);
  }

  private static List<Integer> threadIds() {
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      return tasks.map(task -> Integer.parseInt(task.getFileName().toString())).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The two downcalls, looked up on first use so that merely loading this class never fails. */
  private record Calls(
      MethodHandle getAffinity,
      MethodHandle setAffinity,
      StructLayout stateLayout,
      VarHandle errno) {
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");

    /** {@code int sched_[gs]etaffinity(pid_t pid, size_t cpusetsize, cpu_set_t *mask)}. */
    private static final FunctionDescriptor AFFINITY =
        FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS);

    static Calls load() throws AffinityException {
      Linker linker = Linker.nativeLinker();
      StructLayout state = Linker.Option.captureStateLayout();
      return new Calls(
          downcall(linker, "sched_getaffinity"),
          downcall(linker, "sched_setaffinity"),
          state,
          state.varHandle(PathElement.groupElement("errno")));
    }

    private static MethodHandle downcall(Linker linker, String name) throws AffinityException {
      MemorySegment address =
          linker
              .defaultLookup()
              .find(name)
              .orElseThrow(() -> new AffinityException(name + " is not available here"));
      return linker.downcallHandle(address, AFFINITY, ERRNO);
    }

    int getAffinity(MemorySegment state, int pid, long bytes, MemorySegment mask) {
      return invoke(getAffinity, state, pid, bytes, mask);
    }

    int setAffinity(MemorySegment state, int pid, long bytes, MemorySegment mask) {
      return invoke(setAffinity, state, pid, bytes, mask);
    }

    int errno(MemorySegment state) {
      return (int) errno.get(state, 0L);
    }

    private static int invoke(
        MethodHandle call, MemorySegment state, int pid, long bytes, MemorySegment mask) {
      try {
        return (int) call.invokeExact(state, pid, bytes, mask);
      } catch (Throwable e) {
        throw new IllegalStateException("native affinity call failed", e);
      }
    }
  }
}
