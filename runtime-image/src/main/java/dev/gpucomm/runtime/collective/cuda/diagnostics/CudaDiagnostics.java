package dev.gpucomm.runtime.collective.cuda.diagnostics;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.collective.cuda.CudaCommunicator;
import dev.gpucomm.runtime.collective.cuda.CudaCommunicatorSettings;
import dev.gpucomm.runtime.collective.cuda.KernelShape;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Graph;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaBackend;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.device.cuda.CudaDriverApi;
import dev.gpucomm.runtime.numeric.ElementCodec;
import dev.gpucomm.runtime.numeric.ReductionTolerance;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import dev.gpucomm.runtime.rendezvous.RendezvousAddress;
import dev.gpucomm.runtime.rendezvous.TcpStoreClient;
import dev.gpucomm.runtime.rendezvous.TcpStoreServer;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Diagnostics of the CUDA backend on one host, one process per GPU: checks every all-reduce
 * algorithm and kernel variant against a float64 reference (odd sizes, back-to-back calls with
 * sizes changing, CUDA-graph replay mixed with eager calls), the NCCL collectives and cuBLAS, then
 * times all-reduce eager and from CUDA graphs and, optionally, sweeps kernel block counts.
 *
 * <pre>
 * GPUCOMM_MAIN=dev.gpucomm.runtime.collective.cuda.diagnostics.CudaDiagnostics \
 *   gpucomm --rank R --world W --store HOST:PORT [--check] [--bench] [--tune | --tune-chunks]
 *   [--json FILE]
 * </pre>
 *
 * Rank 0 hosts the store. Exit status 1 when any check fails.
 */
public final class CudaDiagnostics {
  private static final Duration TIMEOUT = Duration.ofMinutes(3);
  private static final int HIDDEN = 8192;
  private static final int[] TOKENS = {32, 64, 128, 256, 512, 1024, 2048, 4096};

  private final RankTopology topology;
  private final KeyValueStore store;
  private final CudaDevice device;
  private final CudaCommunicator communicator;
  private final Stream stream;
  private final PrintStream out = System.out;
  private final List<String> failures = new ArrayList<>();
  private final List<Map<String, Object>> rows = new ArrayList<>();
  private int barriers;
  private Path jsonPath;
  private final Map<Long, RankInputs> benchReferences = new java.util.HashMap<>();

  private CudaDiagnostics(
      RankTopology topology,
      KeyValueStore store,
      CudaDevice device,
      CudaCommunicator communicator) {
    this.topology = topology;
    this.store = store;
    this.device = device;
    this.communicator = communicator;
    this.stream = device.defaultStream();
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options = parse(args);
    int rank = Integer.parseInt(options.getOrDefault("--rank", "0"));
    int world = Integer.parseInt(options.getOrDefault("--world", "1"));
    RendezvousAddress address =
        RendezvousAddress.parse(options.getOrDefault("--store", "127.0.0.1:29500"), "--store");
    TcpStoreServer server = rank == 0 ? TcpStoreServer.start(address.port()) : null;
    int status;
    try (TcpStoreClient store = TcpStoreClient.connect(address, rank, world, TIMEOUT)) {
      RankTopology topology = new RankTopology(rank, world, rank, world);
      CudaBackend backend = new CudaBackend();
      try (CudaDevice device = (CudaDevice) backend.open(rank)) {
        long start = System.nanoTime();
        CudaCommunicator communicator =
            CudaCommunicator.create(
                device, store, topology, CudaCommunicatorSettings.fromEnvironment());
        try {
          CudaDiagnostics diagnostics = new CudaDiagnostics(topology, store, device, communicator);
          diagnostics.describe(backend, (System.nanoTime() - start) / 1e9);
          status = diagnostics.run(options);
        } finally {
          communicator.close();
        }
      }
      store.barrier("diagnostics/done", world, TIMEOUT);
    } finally {
      if (server != null) {
        server.awaitAllRanksGone(Duration.ofSeconds(30));
        server.close();
      }
    }
    System.exit(status);
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
        options.put(args[i], args[++i]);
      } else {
        options.put(args[i], "true");
      }
    }
    return options;
  }

  private void describe(CudaBackend backend, double creationSeconds) {
    if (topology.rank() != 0) {
      return;
    }
    CudaDriverApi api = CudaDriverApi.get();
    out.printf(
        Locale.ROOT,
        "host: %d x %s (cc %s, %d SMs), CUDA driver %d, NCCL %s, world %d%n",
        backend.deviceCount(),
        device.name(),
        device.computeCapability().orElseThrow(),
        device.multiprocessors(),
        api.driverVersion(),
        communicator.ncclVersion(),
        topology.worldSize());
    out.printf(
        Locale.ROOT,
        "communicator: %s in %.2f s; unavailable: %s%n",
        communicator.allReduceAlgorithms(),
        creationSeconds,
        communicator.unavailableReason().isEmpty() ? "none" : communicator.unavailableReason());
  }

  private int run(Map<String, String> options) throws IOException {
    if (options.containsKey("--json") && topology.rank() == 0) {
      jsonPath = Path.of(options.get("--json"));
    }
    if (options.containsKey("--check")) {
      checkAllReduce();
      checkBackToBack();
      checkGraphReplay();
      checkOtherCollectives();
      checkMatmul();
      measureHostCost();
    }
    if (options.containsKey("--bench")) {
      bench(Integer.parseInt(options.getOrDefault("--samples", "100")));
    }
    if (options.containsKey("--tune")) {
      tuneGrids();
    }
    if (options.containsKey("--tune") || options.containsKey("--tune-chunks")) {
      tuneChunks();
    }
    writeJson();
    for (String failure : failures) {
      System.err.println("rank " + topology.rank() + " FAILED " + failure);
    }
    if (topology.rank() == 0) {
      out.println(failures.isEmpty() ? "diagnostics: all checks passed" : "diagnostics: FAILED");
    }
    return failures.isEmpty() ? 0 : 1;
  }

  private List<AllReduceRunner> customRunners() {
    List<AllReduceRunner> runners = new ArrayList<>();
    if (communicator.allReduceAlgorithms().contains(Algorithm.ONESHOT)) {
      runners.add(AllReduceRunner.kernel("lamport"));
      runners.add(AllReduceRunner.kernel("oneshot"));
      runners.add(AllReduceRunner.kernel("twoshot"));
      runners.add(AllReduceRunner.kernel("lamport2"));
      runners.add(AllReduceRunner.kernel("oneshot_ws"));
      runners.add(AllReduceRunner.kernel("twoshot_ws"));
    }
    return runners;
  }

  private void barrier() {
    store.barrier("diagnostics/" + barriers++, topology.worldSize(), TIMEOUT);
  }

  // ------------------------------------------------------------------------------------------
  // Correctness.

  private void checkAllReduce() {
    long[] counts = {8, 24, 1001, 4104, 65536, 262_152, 1_048_576, 4_194_304 + 8, 8_388_608};
    long lamportCapacity = lamportCapacity();
    for (DType dtype : DType.values()) {
      for (long count : counts) {
        long bytes = count * dtype.bytes();
        RankInputs reference = RankInputs.reference(dtype, count, topology.worldSize());
        try (Arena arena = Arena.ofConfined();
            DeviceBuffer input = device.allocate(bytes);
            DeviceBuffer output = device.allocate(bytes)) {
          MemorySegment host = RankInputs.allocateHost(arena, count, dtype);
          RankInputs.fill(host, topology.rank(), count, dtype);
          device.upload(host, input, 0);
          MemorySegment result = RankInputs.allocateHost(arena, count, dtype);
          MemorySegment firstCustom = null;
          List<AllReduceRunner> runners = new ArrayList<>(customRunners());
          if (communicator.allReduceAlgorithms().contains(Algorithm.NCCL)) {
            runners.add(AllReduceRunner.algorithm(Algorithm.NCCL));
          }
          for (AllReduceRunner runner : runners) {
            if (!fits(runner, bytes)) {
              continue;
            }
            barrier();
            device.fill(output, 0, bytes, (byte) 0x7f, stream);
            runner.run(communicator, input, output, count, dtype, stream);
            device.download(output, 0, result, stream);
            String what = "allreduce " + runner.label() + " " + dtype + " x " + count;
            RankInputs.Verdict verdict = reference.validate(result, runner.algorithm());
            if (!verdict.passed()) {
              failures.add(what + ": " + verdict.failure());
            } else if (runner.variant() != null) {
              if (firstCustom == null) {
                firstCustom = arena.allocate(bytes, 16);
                firstCustom.copyFrom(result);
              } else if (firstCustom.mismatch(result) >= 0) {
                failures.add(what + ": not bit-identical to " + customRunners().get(0).label());
              }
            }
          }
        }
      }
      report("allreduce " + dtype + ": every algorithm and kernel at " + counts.length + " sizes");
    }
  }

  /** Whether a runner can take {@code bytes} (the Lamport kernels have small buffers). */
  private boolean fits(AllReduceRunner runner, long bytes) {
    if (runner.variant() == null) {
      return runner.isNccl() || bytes <= communicator.maxPeerMemoryBytes();
    }
    return switch (runner.variant()) {
      case "lamport" -> bytes <= lamportCapacity();
      case "lamport2" -> bytes <= lamport2Capacity();
      default -> bytes <= communicator.maxPeerMemoryBytes();
    };
  }

  private long lamport2Capacity() {
    return Long.parseLong(
        System.getenv()
            .getOrDefault(
                "GPUCOMM_LAMPORT2_MAX_BYTES",
                Long.toString(CudaCommunicatorSettings.DEFAULT_LAMPORT2_MAX_BYTES)));
  }

  private long lamportCapacity() {
    return Long.parseLong(
        System.getenv()
            .getOrDefault(
                "GPUCOMM_LAMPORT_MAX_BYTES",
                Long.toString(CudaCommunicatorSettings.DEFAULT_LAMPORT_MAX_BYTES)));
  }

  /** Many calls in a row, sizes and kernels changing, no synchronization in between. */
  private void checkBackToBack() {
    List<AllReduceRunner> runners = customRunners();
    if (runners.isEmpty()) {
      return;
    }
    DType dtype = DType.BF16;
    long[] counts = {4104, 262_144, 1_048_576 + 8, 2_000_000};
    List<long[]> plan = new ArrayList<>();
    for (int i = 0; i < counts.length; i++) {
      for (int r = 0; r < runners.size(); r++) {
        if (fits(runners.get(r), counts[i] * 2)) {
          plan.add(new long[] {i, r});
        }
      }
    }
    try (Arena arena = Arena.ofConfined()) {
      DeviceBuffer[] inputs = new DeviceBuffer[counts.length];
      DeviceBuffer[] outputs = new DeviceBuffer[plan.size()];
      for (int i = 0; i < counts.length; i++) {
        MemorySegment host = RankInputs.allocateHost(arena, counts[i], dtype);
        RankInputs.fill(host, topology.rank(), counts[i], dtype);
        inputs[i] = device.allocate(counts[i] * 2);
        device.upload(host, inputs[i], 0);
      }
      for (int p = 0; p < plan.size(); p++) {
        outputs[p] = device.allocate(counts[(int) plan.get(p)[0]] * 2);
      }
      barrier();
      int calls = 0;
      for (int round = 0; round < 40; round++) {
        for (int p = 0; p < plan.size(); p++) {
          int size = (int) plan.get(p)[0];
          runners
              .get((int) plan.get(p)[1])
              .run(communicator, inputs[size], outputs[p], counts[size], dtype, stream);
          calls++;
        }
      }
      stream.synchronize();
      for (int i = 0; i < counts.length; i++) {
        RankInputs reference = RankInputs.reference(dtype, counts[i], topology.worldSize());
        for (int p = 0; p < plan.size(); p++) {
          if (plan.get(p)[0] == i) {
            MemorySegment result = RankInputs.allocateHost(arena, counts[i], dtype);
            device.download(outputs[p], 0, result, stream);
            RankInputs.Verdict verdict = reference.validate(result, null);
            if (!verdict.passed()) {
              failures.add(
                  "back-to-back "
                      + runners.get((int) plan.get(p)[1]).label()
                      + " x "
                      + counts[i]
                      + ": "
                      + verdict.failure());
            }
          }
        }
        inputs[i].close();
      }
      for (DeviceBuffer output : outputs) {
        output.close();
      }
      report("back-to-back: " + calls + " calls, sizes and kernels changing, no sync");
    }
  }

  /** A graph of several kernels and sizes, replayed many times, with eager calls in between. */
  private void checkGraphReplay() {
    List<AllReduceRunner> runners = customRunners();
    if (runners.isEmpty()) {
      return;
    }
    DType dtype = DType.FP16;
    long[] counts = {32_768, 524_288, 2_097_152};
    try (Arena arena = Arena.ofConfined()) {
      DeviceBuffer[] inputs = new DeviceBuffer[counts.length];
      DeviceBuffer[] outputs = new DeviceBuffer[counts.length];
      for (int i = 0; i < counts.length; i++) {
        MemorySegment host = RankInputs.allocateHost(arena, counts[i], dtype);
        RankInputs.fill(host, topology.rank(), counts[i], dtype);
        inputs[i] = device.allocate(counts[i] * 2);
        outputs[i] = device.allocate(counts[i] * 2);
        device.upload(host, inputs[i], 0);
      }
      barrier();
      Graph graph =
          device.capture(
              stream,
              () -> {
                for (int repeat = 0; repeat < 2; repeat++) {
                  runners.get(0).run(communicator, inputs[0], outputs[0], counts[0], dtype, stream);
                  runners.get(1).run(communicator, inputs[1], outputs[1], counts[1], dtype, stream);
                  runners.get(2).run(communicator, inputs[2], outputs[2], counts[2], dtype, stream);
                }
              });
      for (int replay = 0; replay < 50; replay++) {
        graph.replay(stream);
        if (replay % 10 == 0) {
          runners
              .get(replay % 3)
              .run(communicator, inputs[0], outputs[0], counts[0], dtype, stream);
        }
      }
      stream.synchronize();
      for (int i = 0; i < counts.length; i++) {
        RankInputs reference = RankInputs.reference(dtype, counts[i], topology.worldSize());
        MemorySegment result = RankInputs.allocateHost(arena, counts[i], dtype);
        device.download(outputs[i], 0, result, stream);
        RankInputs.Verdict verdict = reference.validate(result, null);
        if (!verdict.passed()) {
          failures.add("graph replay x " + counts[i] + ": " + verdict.failure());
        }
        inputs[i].close();
        outputs[i].close();
      }
      graph.close();
      report("graph replay: 50 replays of 6 kernels, eager calls in between");
    }
  }

  private void checkOtherCollectives() {
    if (!communicator.allReduceAlgorithms().contains(Algorithm.NCCL)) {
      return;
    }
    int world = topology.worldSize();
    int rank = topology.rank();
    DType dtype = DType.FP32;
    ElementCodec codec = ElementCodec.of(dtype);
    long count = 4096;
    long bytes = count * 4;
    try (Arena arena = Arena.ofConfined();
        DeviceBuffer input = device.allocate(bytes * world);
        DeviceBuffer output = device.allocate(bytes * world)) {
      MemorySegment host = arena.allocate(bytes * world, 16);
      for (long i = 0; i < count * world; i++) {
        codec.write(host, i, rank * 1000 + i % 997);
      }
      device.upload(host, input, 0);
      MemorySegment result = arena.allocate(bytes * world, 16);

      barrier();
      communicator.allGather(Algorithm.NCCL, input, output, count, dtype, stream);
      device.download(output, 0, result, stream);
      expect("all-gather", result, count * world, i -> (i / count) * 1000 + (i % count) % 997);

      barrier();
      communicator.reduceScatter(Algorithm.NCCL, input, output, count, dtype, stream);
      device.download(output, 0, result.asSlice(0, bytes), stream);
      long sumOfRanks = (long) world * (world - 1) / 2;
      expect(
          "reduce-scatter",
          result,
          count,
          i -> sumOfRanks * 1000 + world * ((rank * count + i) % 997));

      barrier();
      communicator.broadcast(Algorithm.NCCL, input, output, count, dtype, world - 1, stream);
      device.download(output, 0, result.asSlice(0, bytes), stream);
      expect("broadcast", result, count, i -> (world - 1) * 1000 + i % 997);

      barrier();
      communicator.collectivePermute(input, output, count, dtype, stream);
      device.download(output, 0, result, stream);
      expect(
          "collective permute", result, count * world, i -> (i / count) * 1000 + (i % count) % 997);

      barrier();
      communicator.sendReceive(
          input, (rank + 1) % world, output, (rank + world - 1) % world, bytes, stream);
      device.download(output, 0, result.asSlice(0, bytes), stream);
      expect("send/receive", result, count, i -> ((rank + world - 1) % world) * 1000 + i % 997);
    }
    report("nccl all-gather, reduce-scatter, broadcast, collective permute, send/receive");
  }

  private interface Expected {
    double at(long index);
  }

  private void expect(String what, MemorySegment result, long count, Expected expected) {
    ElementCodec codec = ElementCodec.of(DType.FP32);
    for (long i = 0; i < count; i++) {
      if (codec.read(result, i) != expected.at(i)) {
        failures.add(
            what
                + ": element "
                + i
                + " is "
                + codec.read(result, i)
                + ", expected "
                + expected.at(i));
        return;
      }
    }
  }

  private void checkMatmul() {
    int m = 192;
    int n = 320;
    int k = 256;
    for (DType dtype : DType.values()) {
      ElementCodec codec = ElementCodec.of(dtype);
      try (Arena arena = Arena.ofConfined();
          DeviceBuffer a = device.allocate((long) m * k * dtype.bytes());
          DeviceBuffer b = device.allocate((long) k * n * dtype.bytes());
          DeviceBuffer c = device.allocate((long) m * n * dtype.bytes())) {
        MemorySegment hostA = arena.allocate(a.byteSize(), 16);
        MemorySegment hostB = arena.allocate(b.byteSize(), 16);
        codec.fillRandom(hostA, (long) m * k, 11 + topology.rank());
        codec.fillRandom(hostB, (long) k * n, 23 + topology.rank());
        device.upload(hostA, a, 0);
        device.upload(hostB, b, 0);
        device.matmul().multiply(a, b, c, m, n, k, dtype, false, stream);
        device.matmul().multiply(a, b, c, m, n, k, dtype, true, stream);
        MemorySegment hostC = arena.allocate(c.byteSize(), 16);
        device.download(c, 0, hostC, stream);
        // C = A·B, then C += A·B: 2·A·B with one more rounding to the dtype in between.
        ReductionTolerance tolerance = ReductionTolerance.forDotProduct(dtype, 2 * k + 1);
        outer:
        for (int row = 0; row < m; row++) {
          for (int column = 0; column < n; column++) {
            double exact = 0;
            double magnitude = 0;
            for (int i = 0; i < k; i++) {
              double product =
                  (double) codec.read(hostA, (long) row * k + i)
                      * codec.read(hostB, (long) i * n + column);
              exact += product;
              magnitude += Math.abs(product);
            }
            double actual = codec.read(hostC, (long) row * n + column);
            double bound =
                2 * tolerance.bound(exact, magnitude) + codec.unitRoundoff() * Math.abs(exact);
            if (!(Math.abs(actual - 2 * exact) <= bound)) {
              failures.add(
                  "matmul "
                      + dtype
                      + " C["
                      + row
                      + ","
                      + column
                      + "] = "
                      + actual
                      + ", expected "
                      + 2 * exact
                      + " ± "
                      + bound);
              break outer;
            }
          }
        }
      }
    }
    report("cuBLAS matmul " + m + "x" + n + "x" + k + " bf16, fp16, fp32 (and accumulate)");
  }

  /** Host time spent inside one eager all-reduce call (the launch path), median of 500. */
  private void measureHostCost() {
    List<AllReduceRunner> runners = new ArrayList<>(customRunners());
    if (communicator.allReduceAlgorithms().contains(Algorithm.NCCL)) {
      runners.add(AllReduceRunner.algorithm(Algorithm.NCCL));
    }
    long count = 512;
    try (DeviceBuffer input = device.allocate(count * 2);
        DeviceBuffer output = device.allocate(count * 2)) {
      device.fill(input, 0, count * 2, (byte) 1, stream);
      for (AllReduceRunner runner : runners) {
        long[] nanos = new long[500];
        for (int round = 0; round < 3; round++) {
          barrier();
          stream.synchronize();
          for (int i = 0; i < nanos.length; i++) {
            long start = System.nanoTime();
            runner.run(communicator, input, output, count, DType.BF16, stream);
            nanos[i] = System.nanoTime() - start;
          }
          stream.synchronize();
        }
        Arrays.sort(nanos);
        if (topology.rank() == 0) {
          out.printf(
              Locale.ROOT,
              "host cost of one eager call, %s: median %.2f us, p90 %.2f us%n",
              runner.label(),
              nanos[nanos.length / 2] / 1e3,
              nanos[nanos.length * 9 / 10] / 1e3);
        }
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("kind", "host-cost");
        row.put("world", topology.worldSize());
        row.put("runner", runner.label());
        row.put("medianMicros", nanos[nanos.length / 2] / 1e3);
        rows.add(row);
      }
    }
  }

  // ------------------------------------------------------------------------------------------
  // Timing.

  private void bench(int samples) {
    List<AllReduceRunner> runners = new ArrayList<>();
    if (communicator.allReduceAlgorithms().contains(Algorithm.NCCL)) {
      runners.add(AllReduceRunner.algorithm(Algorithm.NCCL));
    }
    runners.addAll(customRunners());
    if (communicator.allReduceAlgorithms().contains(Algorithm.ONESHOT)) {
      runners.add(AllReduceRunner.algorithm(Algorithm.ONESHOT));
      runners.add(AllReduceRunner.algorithm(Algorithm.TWOSHOT));
    }
    if (topology.rank() == 0) {
      out.println(
          "bench: bf16, hidden "
              + HIDDEN
              + ", world "
              + topology.worldSize()
              + ", median of "
              + samples
              + " samples of 10 calls (us per call)");
      out.println("tokens      bytes  runner           eager     graph   busbw(GB/s)  maxRelErr");
    }
    for (int tokens : TOKENS) {
      long count = (long) tokens * HIDDEN;
      for (AllReduceRunner runner : runners) {
        if (fits(runner, count * 2)) {
          time(runner, tokens, count, DType.BF16, samples);
        }
      }
    }
  }

  private void time(AllReduceRunner runner, int tokens, long count, DType dtype, int samples) {
    int perSample = 10;
    long bytes = count * dtype.bytes();
    try (Arena arena = Arena.ofConfined();
        DeviceBuffer input = device.allocate(bytes);
        DeviceBuffer output = device.allocate(bytes)) {
      MemorySegment host = RankInputs.allocateHost(arena, count, dtype);
      RankInputs.fill(host, topology.rank(), count, dtype);
      device.upload(host, input, 0);
      Event[] events = new Event[samples + 1];
      for (int i = 0; i < events.length; i++) {
        events[i] = device.createEvent();
      }
      barrier();
      for (int i = 0; i < 20; i++) {
        runner.run(communicator, input, output, count, dtype, stream);
      }
      stream.synchronize();
      barrier();
      events[0].record(stream);
      for (int s = 0; s < samples; s++) {
        for (int i = 0; i < perSample; i++) {
          runner.run(communicator, input, output, count, dtype, stream);
        }
        events[s + 1].record(stream);
      }
      events[samples].synchronize();
      double eager = median(events, perSample);

      barrier();
      Graph graph =
          device.capture(
              stream,
              () -> {
                for (int i = 0; i < perSample; i++) {
                  runner.run(communicator, input, output, count, dtype, stream);
                }
              });
      for (int i = 0; i < 3; i++) {
        graph.replay(stream);
      }
      stream.synchronize();
      barrier();
      events[0].record(stream);
      for (int s = 0; s < samples; s++) {
        graph.replay(stream);
        events[s + 1].record(stream);
      }
      events[samples].synchronize();
      double graphed = median(events, perSample);
      graph.close();
      for (Event event : events) {
        event.close();
      }

      MemorySegment result = RankInputs.allocateHost(arena, count, dtype);
      device.download(output, 0, result, stream);
      RankInputs.Verdict verdict =
          benchReference(dtype, count).validate(result, runner.algorithm());
      if (!verdict.passed()) {
        failures.add("bench " + runner.label() + " x " + count + ": " + verdict.failure());
      }
      int world = topology.worldSize();
      double best = Math.min(eager, graphed);
      double busBandwidth = bytes / (best * 1e-6) / 1e9 * 2.0 * (world - 1) / world;
      if (topology.rank() == 0) {
        out.printf(
            Locale.ROOT,
            "%6d %10d  %-14s %8.2f  %8.2f  %10.1f   %.2e%n",
            tokens,
            bytes,
            runner.label(),
            eager,
            graphed,
            busBandwidth,
            verdict.maxRelativeError());
      }
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("kind", "allreduce");
      row.put("world", world);
      row.put("tokens", tokens);
      row.put("bytes", bytes);
      row.put("runner", runner.label());
      row.put("eagerMicros", eager);
      row.put("graphMicros", graphed);
      row.put("busBandwidthGBps", busBandwidth);
      row.put("maxRelativeError", verdict.maxRelativeError());
      row.put("samples", samples);
      row.put("callsPerSample", perSample);
      rows.add(row);
      writeJson();
    }
  }

  /** The bench's bf16 reference for one size, computed once. */
  private RankInputs benchReference(DType dtype, long count) {
    return benchReferences.computeIfAbsent(
        count, c -> RankInputs.reference(dtype, c, topology.worldSize()));
  }

  private static double median(Event[] events, int callsPerSample) {
    double[] micros = new double[events.length - 1];
    for (int i = 0; i < micros.length; i++) {
      micros[i] = events[i + 1].elapsedMillisSince(events[i]) * 1000.0 / callsPerSample;
    }
    Arrays.sort(micros);
    return micros.length % 2 == 1
        ? micros[micros.length / 2]
        : (micros[micros.length / 2 - 1] + micros[micros.length / 2]) / 2;
  }

  /** Sweeps each IPC kernel's grid, changed on every rank at once (graph timing, 50 samples). */
  private void tuneGrids() {
    if (!communicator.allReduceAlgorithms().contains(Algorithm.ONESHOT)) {
      return;
    }
    KernelShape original = communicator.kernelShape();
    int[] gridChoices = {32, 64, 96, 132};
    Map<String, long[]> sweeps = new LinkedHashMap<>();
    sweeps.put("lamport", new long[] {32, 64});
    sweeps.put("lamport2", new long[] {32, 64, 128});
    sweeps.put("oneshot", new long[] {128, 512, 4096});
    sweeps.put("twoshot", new long[] {128, 512, 4096});
    sweeps.put("oneshot_ws", new long[] {1024, 4096});
    sweeps.put("twoshot_ws", new long[] {1024, 4096});
    if (topology.rank() == 0) {
      out.println("tune: starting from " + original);
    }
    for (Map.Entry<String, long[]> sweep : sweeps.entrySet()) {
      String variant = sweep.getKey();
      for (int grid : gridChoices) {
        if (grid > device.multiprocessors()) {
          continue;
        }
        retune(
            original.withGrids(
                variant.startsWith("oneshot") ? grid : original.oneShotBlocks(),
                variant.startsWith("twoshot") ? grid : original.twoShotBlocks(),
                variant.startsWith("lamport") ? grid : original.lamportBlocks()));
        for (long tokens : sweep.getValue()) {
          AllReduceRunner runner =
              AllReduceRunner.kernel(variant).labelled(variant + "/" + grid + "b");
          if (fits(runner, tokens * HIDDEN * 2)) {
            time(runner, (int) tokens, tokens * HIDDEN, DType.BF16, 50);
          }
        }
      }
    }
    retune(original);
  }

  /**
   * Sweeps the pipeline depth of the flag kernels and their warp-specialized variants at 16 and 64
   * MiB, from the 2 chunks of the four-rank two-shot default up (graph timing, 50 samples).
   */
  private void tuneChunks() {
    if (!communicator.allReduceAlgorithms().contains(Algorithm.ONESHOT)) {
      return;
    }
    KernelShape original = communicator.kernelShape();
    for (int chunks : new int[] {2, 4, 8, 16, 32, 64}) {
      retune(original.withChunks(chunks, chunks));
      for (String variant : List.of("oneshot", "twoshot", "oneshot_ws", "twoshot_ws")) {
        for (long tokens : new long[] {1024, 4096}) {
          time(
              AllReduceRunner.kernel(variant).labelled(variant + "/" + chunks + "c"),
              (int) tokens,
              tokens * HIDDEN,
              DType.BF16,
              50);
        }
      }
    }
    retune(original);
  }

  private void retune(KernelShape shape) {
    stream.synchronize();
    barrier();
    communicator.tune(shape);
    barrier();
  }

  private void report(String check) {
    barrier();
    if (topology.rank() == 0) {
      out.println("check: " + check + (failures.isEmpty() ? ": ok" : ": FAILURES so far"));
    }
  }

  /** Rewrites the JSON file (rank 0) after every row, so that an interrupted run keeps its rows. */
  private void writeJson() {
    if (jsonPath == null) {
      return;
    }
    StringBuilder json = new StringBuilder("[\n");
    for (int i = 0; i < rows.size(); i++) {
      json.append("  {");
      int field = 0;
      for (Map.Entry<String, Object> entry : rows.get(i).entrySet()) {
        json.append(field++ == 0 ? "" : ", ").append('"').append(entry.getKey()).append("\": ");
        Object value = entry.getValue();
        json.append(value instanceof String ? "\"" + value + "\"" : String.valueOf(value));
      }
      json.append(i + 1 < rows.size() ? "},\n" : "}\n");
    }
    try {
      Files.writeString(jsonPath, json.append("]\n"));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("cannot write " + jsonPath, e);
    }
  }
}
