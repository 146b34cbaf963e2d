package dev.gpucomm.runtime.nccl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.gpucomm.runtime.device.cuda.LoadedOnce;
import dev.gpucomm.runtime.device.cuda.NativeLibraries;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * NCCL called through the FFM API on {@code libnccl.so.2}, found at {@code NCCL_LIBRARY} when set,
 * else by the dynamic loader, else in the usual install folders.
 */
public final class NcclApi {
  static final MemoryLayout UNIQUE_ID =
      MemoryLayout.structLayout(MemoryLayout.sequenceLayout(NcclUniqueId.BYTES, JAVA_BYTE))
          .withName("ncclUniqueId");

  /** Every function this binding calls, with the C signature used (checked against nccl.h). */
  static final Map<String, FunctionDescriptor> FUNCTIONS;

  static {
    Map<String, FunctionDescriptor> f = new LinkedHashMap<>();
    f.put("ncclGetVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    f.put("ncclGetUniqueId", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    f.put(
        "ncclCommInitRank",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, UNIQUE_ID, JAVA_INT));
    f.put(
        "ncclCommInitRankConfig",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, UNIQUE_ID, JAVA_INT, ADDRESS));
    f.put(
        "ncclCommSplit",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    f.put("ncclCommDestroy", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    f.put("ncclCommAbort", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    f.put("ncclGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    f.put("ncclGetLastError", FunctionDescriptor.of(ADDRESS, ADDRESS));
    f.put(
        "ncclAllReduce",
        FunctionDescriptor.of(
            JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    f.put(
        "ncclAllGather",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS));
    f.put(
        "ncclReduceScatter",
        FunctionDescriptor.of(
            JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    f.put(
        "ncclBroadcast",
        FunctionDescriptor.of(
            JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    f.put(
        "ncclSend",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    f.put(
        "ncclRecv",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    f.put("ncclGroupStart", FunctionDescriptor.of(JAVA_INT));
    f.put("ncclGroupEnd", FunctionDescriptor.of(JAVA_INT));
    FUNCTIONS = Collections.unmodifiableMap(f);
  }

  private static final LoadedOnce<NcclApi> BINDING = new LoadedOnce<>(NcclApi::tryLoad);

  private final String source;
  private final MethodHandle getVersion;
  private final MethodHandle getUniqueId;
  private final MethodHandle commInitRank;
  private final MethodHandle commInitRankConfig;
  private final MethodHandle commSplit;
  private final MethodHandle commDestroy;
  private final MethodHandle commAbort;
  private final MethodHandle getErrorString;
  private final MethodHandle getLastError;
  final MethodHandle allReduce;
  final MethodHandle allGather;
  final MethodHandle reduceScatter;
  final MethodHandle broadcast;
  final MethodHandle send;
  final MethodHandle recv;
  private final MethodHandle groupStart;
  private final MethodHandle groupEnd;

  private NcclApi(SymbolLookup lookup, String source) {
    this.source = source;
    Map<String, MethodHandle> handles = NativeLibraries.bind(lookup, source, FUNCTIONS);
    getVersion = handles.get("ncclGetVersion");
    getUniqueId = handles.get("ncclGetUniqueId");
    commInitRank = handles.get("ncclCommInitRank");
    commInitRankConfig = handles.get("ncclCommInitRankConfig");
    commSplit = handles.get("ncclCommSplit");
    commDestroy = handles.get("ncclCommDestroy");
    commAbort = handles.get("ncclCommAbort");
    getErrorString = handles.get("ncclGetErrorString");
    getLastError = handles.get("ncclGetLastError");
    allReduce = handles.get("ncclAllReduce");
    allGather = handles.get("ncclAllGather");
    reduceScatter = handles.get("ncclReduceScatter");
    broadcast = handles.get("ncclBroadcast");
    send = handles.get("ncclSend");
    recv = handles.get("ncclRecv");
    groupStart = handles.get("ncclGroupStart");
    groupEnd = handles.get("ncclGroupEnd");
  }

  /**
   * The NCCL binding, loaded once per process.
   *
   * @throws IllegalStateException naming every place looked at when NCCL cannot be loaded
   */
  public static NcclApi get() {
    return BINDING.get();
  }

  private static NcclApi tryLoad() {
    List<String> failures = new ArrayList<>();
    var library =
        NativeLibraries.load(
            "NCCL_LIBRARY",
            List.of("libnccl.so.2"),
            List.of(
                Path.of("/usr/lib/x86_64-linux-gnu"),
                Path.of("/usr/local/cuda/lib64"),
                Path.of("/usr/local/nccl/lib"),
                Path.of("/usr/lib64")),
            failures);
    if (library.isEmpty()) {
      throw new IllegalStateException(
          "NCCL (libnccl.so.2) was not found; set NCCL_LIBRARY to its path ("
              + String.join("; ", failures)
              + ")");
    }
    return new NcclApi(library.get().lookup(), library.get().source());
  }

  /** Where libnccl was loaded from. */
  public String source() {
    return source;
  }

  /** NCCL's version code, e.g. 22803 for 2.28.3. */
  public int version() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(JAVA_INT);
      check((int) getVersion.invokeExact(out), "ncclGetVersion", MemorySegment.NULL);
      return out.get(JAVA_INT, 0);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** "2.28.3" for the code 22803 (NCCL ≥ 2.9 encodes major*10000 + minor*100 + patch). */
  public static String versionText(int code) {
    return code >= 10000
        ? (code / 10000) + "." + (code / 100 % 100) + "." + (code % 100)
        : (code / 1000) + "." + (code / 100 % 10) + "." + (code % 100);
  }

  public NcclUniqueId uniqueId() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment id = arena.allocate(UNIQUE_ID);
      check((int) getUniqueId.invokeExact(id), "ncclGetUniqueId", MemorySegment.NULL);
      return new NcclUniqueId(id.toArray(JAVA_BYTE));
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * Joins the communicator named by {@code id} as {@code rank} of {@code ranks}; blocks until every
   * rank has joined. The calling thread's current CUDA device is the one NCCL uses.
   */
  public NcclComm initRank(int ranks, NcclUniqueId id, int rank) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      MemorySegment idSegment = arena.allocate(UNIQUE_ID);
      idSegment.copyFrom(MemorySegment.ofArray(id.bytes()));
      check(
          (int) commInitRank.invokeExact(out, ranks, idSegment, rank),
          "ncclCommInitRank",
          MemorySegment.NULL);
      return new NcclComm(this, out.get(ADDRESS, 0), rank, ranks);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * Like {@link #initRank(int, NcclUniqueId, int)}, with every collective of the communicator
   * running on at most {@code maxCtas} CTAs (NCCL also caps it at its channel limit), so that it
   * leaves the GPU's other multiprocessors to work on other streams.
   */
  public NcclComm initRank(int ranks, NcclUniqueId id, int rank, int maxCtas) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      MemorySegment idSegment = arena.allocate(UNIQUE_ID);
      idSegment.copyFrom(MemorySegment.ofArray(id.bytes()));
      MemorySegment config = NcclConfig.limitedToCtas(arena, maxCtas);
      check(
          (int) commInitRankConfig.invokeExact(out, ranks, idSegment, rank, config),
          "ncclCommInitRankConfig",
          MemorySegment.NULL);
      return new NcclComm(this, out.get(ADDRESS, 0), rank, ranks);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * ncclCommSplit of {@code parent}: every rank of the parent calls it together, and the ranks
   * passing the same {@code color} form one new communicator, ordered by {@code key}. The new
   * communicator inherits the parent's config (NULL config).
   */
  MemorySegment split(MemorySegment parent, int color, int key) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      check(
          (int) commSplit.invokeExact(parent, color, key, out, MemorySegment.NULL),
          "ncclCommSplit",
          parent);
      return out.get(ADDRESS, 0);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  void destroy(MemorySegment comm) {
    call(commDestroy, "ncclCommDestroy", comm, comm);
  }

  void abort(MemorySegment comm) {
    call(commAbort, "ncclCommAbort", comm, MemorySegment.NULL);
  }

  public void groupStart() {
    call(groupStart, "ncclGroupStart");
  }

  public void groupEnd() {
    call(groupEnd, "ncclGroupEnd");
  }

  /** Calls {@code function}, of no arguments, and throws for a result other than ncclSuccess. */
  private void call(MethodHandle function, String name) {
    try {
      check((int) function.invokeExact(), name, MemorySegment.NULL);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * Calls {@code function} on {@code comm} and throws for a result other than ncclSuccess, with the
   * last error of {@code errorsOf} (NULL for the last error of any communicator).
   */
  private void call(
      MethodHandle function, String name, MemorySegment comm, MemorySegment errorsOf) {
    try {
      check((int) function.invokeExact(comm), name, errorsOf);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** Throws an {@link NcclException} for a result other than ncclSuccess. */
  void check(int result, String call, MemorySegment comm) {
    if (result != 0) {
      throw new NcclException(call, result, errorString(result), lastError(comm));
    }
  }

  private String errorString(int result) {
    try {
      MemorySegment text = (MemorySegment) getErrorString.invokeExact(result);
      return text.equals(MemorySegment.NULL) ? "unknown" : text.reinterpret(1024).getString(0);
    } catch (Throwable t) {
      return "unknown";
    }
  }

  private String lastError(MemorySegment comm) {
    try {
      MemorySegment text = (MemorySegment) getLastError.invokeExact(comm);
      return text.equals(MemorySegment.NULL) ? "" : text.reinterpret(4096).getString(0);
    } catch (Throwable t) {
      return "";
    }
  }
}
