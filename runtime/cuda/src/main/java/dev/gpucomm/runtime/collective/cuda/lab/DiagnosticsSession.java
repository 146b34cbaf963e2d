package dev.gpucomm.runtime.collective.cuda.lab;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.collective.cuda.CudaCommunicator;
import dev.gpucomm.runtime.collective.cuda.CudaCommunicatorSettings;
import dev.gpucomm.runtime.collective.cuda.IpcAllReduce;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.files.ReplacingFile;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What every part of one rank's diagnostics shares: the device, its default stream, the
 * communicator and its IPC all-reduce, the store the ranks meet at, the failures found so far, and
 * the rows of the JSON file (rank 0 writes it).
 */
final class DiagnosticsSession {
  static final Duration TIMEOUT = Duration.ofMinutes(3);
  static final int HIDDEN = 8192;

  final RankTopology topology;
  final CudaDevice device;
  final CudaCommunicator communicator;
  final Stream stream;
  private final Optional<IpcAllReduce> ipcAllReduce;
  final PrintStream out = System.out;
  private final KeyValueStore store;
  private final List<String> failures = new ArrayList<>();
  private final List<Map<String, Object>> rows = new ArrayList<>();
  private final Path jsonPath;
  private int barriers;

  DiagnosticsSession(
      RankTopology topology,
      KeyValueStore store,
      CudaDevice device,
      CudaCommunicator communicator,
      Path jsonPath) {
    this.topology = topology;
    this.store = store;
    this.device = device;
    this.communicator = communicator;
    this.ipcAllReduce = communicator.ipcAllReduce();
    this.stream = device.defaultStream();
    this.jsonPath = topology.rank() == 0 ? jsonPath : null;
  }

  /** The communicator's IPC all-reduce, whose kernels the runners force by name. */
  IpcAllReduce ipcAllReduce() {
    return ipcAllReduce.orElseThrow(
        () ->
            new IllegalStateException(
                "the IPC kernels are unavailable: " + communicator.unavailableReason()));
  }

  /** Whether the communicator has an IPC all-reduce (peer memory is on). */
  boolean hasIpcAllReduce() {
    return ipcAllReduce.isPresent();
  }

  boolean isRankZero() {
    return topology.rank() == 0;
  }

  /**
   * Every IPC kernel variant, forced by name (those with a host path where that is on); empty when
   * peer memory is unavailable.
   */
  List<AllReduceRunner> customRunners() {
    List<AllReduceRunner> runners = new ArrayList<>();
    if (hasIpcAllReduce()) {
      for (String variant :
          List.of("lamport", "oneshot", "twoshot", "lamport2", "oneshot_ws", "twoshot_ws")) {
        runners.add(AllReduceRunner.kernel(variant));
      }
      for (String variant : ipcAllReduce().hostPathKernels()) {
        runners.add(AllReduceRunner.kernel(variant));
      }
    }
    return runners;
  }

  /** The custom kernels, then NCCL when it is available. */
  List<AllReduceRunner> customRunnersAndNccl() {
    List<AllReduceRunner> runners = new ArrayList<>(customRunners());
    if (communicator.allReduceAlgorithms().contains(Algorithm.NCCL)) {
      runners.add(AllReduceRunner.algorithm(Algorithm.NCCL));
    }
    return runners;
  }

  /** Runs one all-reduce with {@code runner} on the default stream. */
  void allReduce(
      AllReduceRunner runner, DeviceBuffer input, DeviceBuffer output, long count, DType dtype) {
    runner.run(this, input, output, count, dtype, stream);
  }

  /** Whether a runner can take {@code bytes} (the Lamport kernels have small buffers). */
  boolean fits(AllReduceRunner runner, long bytes) {
    if (runner.variant() == null) {
      return runner.isNccl() || bytes <= communicator.maxPeerMemoryBytes();
    }
    return switch (runner.variant()) {
      case "lamport" ->
          bytes
              <= capacity(
                  "GPUCOMM_LAMPORT_MAX_BYTES", CudaCommunicatorSettings.DEFAULT_LAMPORT_MAX_BYTES);
      case "lamport2" ->
          bytes
              <= capacity(
                  "GPUCOMM_LAMPORT2_MAX_BYTES",
                  CudaCommunicatorSettings.DEFAULT_LAMPORT2_MAX_BYTES);
      default -> bytes <= communicator.maxPeerMemoryBytes();
    };
  }

  private static long capacity(String variable, long defaultBytes) {
    return Long.parseLong(System.getenv().getOrDefault(variable, Long.toString(defaultBytes)));
  }

  /** All ranks meet (each call a fresh key). */
  void barrier() {
    store.barrier("diagnostics/" + barriers++, topology.worldSize(), TIMEOUT);
  }

  void fail(String failure) {
    failures.add(failure);
  }

  List<String> failures() {
    return List.copyOf(failures);
  }

  /** Ends a check: the ranks meet, rank 0 prints whether anything failed so far. */
  void report(String check) {
    barrier();
    if (isRankZero()) {
      out.println("check: " + check + (failures.isEmpty() ? ": ok" : ": FAILURES so far"));
    }
  }

  /** Adds a row and rewrites the JSON file, so that an interrupted run keeps its rows. */
  void addRow(Map<String, Object> row) {
    rows.add(row);
    writeJson();
  }

  void writeJson() {
    if (jsonPath == null) {
      return;
    }
    try {
      // replaced whole: a reader, or a run stopped mid-write, never sees half of a file
      ReplacingFile.writeString(jsonPath, rowsAsJson(rows));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + jsonPath, e);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The rows as a JSON array, a row a line; names and labels escaped, and a figure that is not a
   * number (a timing that never ran) written as a string, which JSON can hold.
   */
  static String rowsAsJson(List<Map<String, Object>> rows) {
    StringBuilder json = new StringBuilder("[\n");
    for (int i = 0; i < rows.size(); i++) {
      try {
        json.append("  ").append(JSON.writeValueAsString(rows.get(i)));
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException("a diagnostics row is not JSON: " + rows.get(i), e);
      }
      json.append(i + 1 < rows.size() ? ",\n" : "\n");
    }
    return json.append("]\n").toString();
  }
}
