package dev.gpucomm.runtime.nccl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.gpucomm.runtime.fabric.FabricObservation;
import dev.gpucomm.runtime.fabric.NcclTransportLog;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * NCCL's INFO log of this process, sent to a file of its own and read back for the transports NCCL
 * chose: NCCL tells which transport connects two ranks (NVLink peer-to-peer, shared memory, IB,
 * sockets, a plugin) only there.
 *
 * <p>The variables are set in this process's C environment before NCCL reads them (its first
 * communicator), so nothing reaches the rank's output. A user who set {@code NCCL_DEBUG} or {@code
 * NCCL_DEBUG_FILE} keeps NCCL's log as configured, and the transports go unrecorded.
 */
public final class NcclDebugLog {
  /** Bytes read back at most: the connection lines come early, the log of a long job does not. */
  private static final long MAX_BYTES = 16L << 20;

  private static NcclDebugLog installed;

  private final Path file;
  private final String unknownReason;

  private NcclDebugLog(Path file, String unknownReason) {
    this.file = file;
    this.unknownReason = unknownReason;
  }

  /**
   * Sends NCCL's log to a file of this process, once per process and before its first NCCL call;
   * later calls return the first one's answer.
   */
  public static synchronized NcclDebugLog install(Map<String, String> environment) {
    if (installed == null) {
      installed = chooseAndSet(environment);
    }
    return installed;
  }

  static NcclDebugLog chooseAndSet(Map<String, String> environment) {
    for (String userSetting : List.of("NCCL_DEBUG_FILE", "NCCL_DEBUG")) {
      if (environment.containsKey(userSetting)) {
        return new NcclDebugLog(
            null, userSetting + " is set in the environment, so NCCL's log is the user's");
      }
    }
    Path file =
        Path.of(
            System.getProperty("java.io.tmpdir"),
            "gpucomm-nccl-" + ProcessHandle.current().pid() + ".log");
    try {
      setenv("NCCL_DEBUG", "INFO");
      setenv("NCCL_DEBUG_SUBSYS", "INIT,NET,GRAPH");
      setenv("NCCL_DEBUG_FILE", file.toString());
    } catch (Throwable e) {
      return new NcclDebugLog(null, "NCCL's log could not be redirected: " + e.getMessage());
    }
    return new NcclDebugLog(file, "");
  }

  /** The log's length in bytes now, to read later only what NCCL writes after it; 0 if none. */
  public long length() {
    if (file == null) {
      return 0;
    }
    try {
      return Files.isRegularFile(file) ? Files.size(file) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  /** What the log says so far; call it after a collective has connected the ranks. */
  public FabricObservation read() {
    return readFrom(0);
  }

  /**
   * What the log says from byte {@code start} on ({@link #length} before a communicator was made):
   * the transports of the communicators connected since then.
   */
  public FabricObservation readFrom(long start) {
    if (file == null) {
      return FabricObservation.unknown(unknownReason);
    }
    try {
      if (!Files.isRegularFile(file)) {
        return FabricObservation.unknown(
            "NCCL wrote no log to " + file + " (it was initialized before gpucomm could set it)");
      }
      long size = Math.min(Math.max(0, Files.size(file) - start), MAX_BYTES);
      byte[] bytes;
      try (var in = Files.newInputStream(file)) {
        in.skipNBytes(Math.min(start, Files.size(file)));
        bytes = in.readNBytes((int) size);
      }
      return FabricObservation.of(
          NcclTransportLog.parse(new String(bytes, StandardCharsets.UTF_8).lines().toList()));
    } catch (IOException e) {
      return FabricObservation.unknown("NCCL's log " + file + " could not be read: " + e);
    }
  }

  private static void setenv(String name, String value) throws Throwable {
    Linker linker = Linker.nativeLinker();
    MethodHandle setenv =
        linker.downcallHandle(
            linker.defaultLookup().find("setenv").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment key = arena.allocateFrom(name);
      MemorySegment text = arena.allocateFrom(value);
      int result = (int) setenv.invokeExact(key, text, 1);
      if (result != 0) {
        throw new IllegalStateException("setenv(" + name + ") failed");
      }
    }
  }
}
