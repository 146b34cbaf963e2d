package dev.gpucomm.runtime.hostir.programs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.api.v1alpha1.ProgramSpec;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.hostir.interp.CommunicatorFactory;
import dev.gpucomm.runtime.hostir.interp.HostIrInterpreter;
import dev.gpucomm.runtime.hostir.interp.PrefixedKeyValueStore;
import dev.gpucomm.runtime.hostir.interp.StreamCommunicators;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.passes.PassOptions;
import dev.gpucomm.runtime.hostir.passes.Passes;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code program} workload of one rank: builds the job's host program, applies its passes, runs
 * the program without and with them on this rank's device, checks that both give the same result
 * (and the exact one), times both and the pipelined program's compute and communication alone, and
 * gathers every rank's figures into one {@link ProgramReport}.
 *
 * <p>Every rank of the job calls {@link #run} with the same spec. Each form of the program gets its
 * own interpreter (its own memory, one form at a time); worker streams get their own communicators
 * from the factory (see {@link StreamCommunicators}), shared by the forms since they never run at
 * once.
 */
public final class ProgramWorkload {
  private static final Duration RENDEZVOUS_TIMEOUT = Duration.ofMinutes(5);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ProgramSettings settings;
  private final HostProgram program;
  private final Device device;
  private final Communicator communicator;
  private final CommunicatorFactory factory;
  private final KeyValueStore store;
  private final RankTopology topology;
  private final List<String> notes = new ArrayList<>();
  private final Set<String> transports = new LinkedHashSet<>();
  private int workerStreams;
  private int extraCommunicators;

  private ProgramWorkload(
      ProgramSettings settings,
      Device device,
      Communicator communicator,
      CommunicatorFactory factory,
      KeyValueStore store,
      RankTopology topology) {
    this.settings = settings;
    this.program = HostProgram.of(settings, topology.worldSize());
    this.device = device;
    this.communicator = communicator;
    this.factory = factory;
    this.store = store;
    this.topology = topology;
  }

  /**
   * Runs the workload {@code spec.workload.program} on this rank.
   *
   * @param communicator the rank's communicator (used on the main stream)
   * @param factory builds one more communicator per worker stream; null to use {@code communicator}
   *     everywhere, which only works for programs that post on one stream at a time
   * @throws ProgramSpecException when the spec cannot run (a one-line message naming the field)
   */
  public static ProgramReport run(
      CommJobSpec spec,
      Device device,
      Communicator communicator,
      CommunicatorFactory factory,
      KeyValueStore store,
      RankTopology topology) {
    ProgramSpec programSpec = spec.getWorkload() == null ? null : spec.getWorkload().getProgram();
    ProgramSettings settings =
        ProgramSettings.resolve(programSpec, device.kind(), topology.worldSize());
    return new ProgramWorkload(settings, device, communicator, factory, store, topology).run();
  }

  /** Runs already resolved settings (tests, and callers that resolved the spec themselves). */
  public static ProgramReport run(
      ProgramSettings settings,
      Device device,
      Communicator communicator,
      CommunicatorFactory factory,
      KeyValueStore store,
      RankTopology topology) {
    return new ProgramWorkload(settings, device, communicator, factory, store, topology).run();
  }

  private ProgramReport run() {
    int rank = topology.rank();
    Program reference = program.build();
    Passes passes = Passes.of(settings.passes(), new PassOptions(settings.streams()));
    Program pipelined = reference;
    for (Passes.Step step : passes.steps(reference)) {
      if (!step.changed()) {
        notes.add(
            step.pass().wireName()
                + " found nothing to rewrite in "
                + settings.name().wireName()
                + " at that point of the pass list");
      }
      pipelined = step.program();
    }
    if (factory == null) {
      notes.add("no communicator factory: every stream shares the rank's communicator");
    }
    // Every rank counts its own workloads, so the n-th workload has the same keys on all ranks.
    long instance = store.add("hostir/workloads/rank-" + rank, 1);
    String namespace = "hostir/" + instance + "/";

    Validation validation;
    ProgramTimes times;
    try (HostData data = new HostData(program, reference.inputs(), rank);
        Stream main = device.createStream();
        ProgramTimer timer = new ProgramTimer(device, main);
        StreamCommunicators communicators =
            factory == null
                ? StreamCommunicators.shared(communicator)
                : StreamCommunicators.perStream(communicator, factory, namespace)) {
      Form forms = new Form(data, main, timer, communicators, namespace);
      MemorySegment[] referenceOutput = new MemorySegment[1];
      double unpipelined = forms.time("unpipelined", reference, referenceOutput);
      MemorySegment[] pipelinedOutput = new MemorySegment[1];
      double pipelinedMillis = forms.time("pipelined", pipelined, pipelinedOutput);
      workerStreams = forms.lastWorkerStreams;
      double computeOnly = forms.time("compute-only", ProgramVariants.computeOnly(pipelined), null);
      double communicationOnly =
          forms.time("communication-only", ProgramVariants.communicationOnly(pipelined), null);
      extraCommunicators = communicators.extraCommunicators();
      validation =
          new OutputValidator(program).validate(rank, referenceOutput[0], pipelinedOutput[0]);
      times = new ProgramTimes(unpipelined, pipelinedMillis, computeOnly, communicationOnly);
    }
    return report(gather(namespace, new RankResult(rank, times, validation)));
  }

  /** Runs and times the forms of the program, one interpreter at a time. */
  private final class Form {
    private final HostData data;
    private final Stream main;
    private final ProgramTimer timer;
    private final StreamCommunicators communicators;
    private final String namespace;
    int lastWorkerStreams;

    Form(
        HostData data,
        Stream main,
        ProgramTimer timer,
        StreamCommunicators communicators,
        String namespace) {
      this.data = data;
      this.main = main;
      this.timer = timer;
      this.communicators = communicators;
      this.namespace = namespace;
    }

    /**
     * Uploads the inputs, runs {@code form} once (into {@code output[0]} when asked for), then
     * times it; returns the median in milliseconds.
     */
    double time(String name, Program form, MemorySegment[] output) {
      try (HostIrInterpreter interpreter =
          HostIrInterpreter.create(
              form,
              device,
              communicators,
              new PrefixedKeyValueStore(store, namespace + name + "/"),
              topology)) {
        List<DeviceBuffer> inputs = form.inputs().stream().map(interpreter::buffer).toList();
        data.upload(device, inputs);
        // The first run creates streams, communicators and buffers and exchanges IPC handles; it
        // is never timed.
        interpreter.run(main);
        if (output != null) {
          output[0] = data.download(device, interpreter.buffer(form.outputs().getFirst()), main);
        } else {
          main.synchronize();
        }
        store.barrier(namespace + name + "/timing", topology.worldSize(), RENDEZVOUS_TIMEOUT);
        double millis =
            timer.medianMillis(interpreter, settings.warmupIterations(), settings.iterations());
        transports.addAll(interpreter.transports());
        lastWorkerStreams = interpreter.workerStreams();
        return millis;
      }
    }
  }

  private List<RankResult> gather(String namespace, RankResult mine) {
    try {
      store.set(namespace + "result/" + mine.rank(), JSON.writeValueAsBytes(mine));
      List<RankResult> results = new ArrayList<>();
      for (int rank = 0; rank < topology.worldSize(); rank++) {
        byte[] bytes =
            rank == mine.rank()
                ? JSON.writeValueAsBytes(mine)
                : store.get(namespace + "result/" + rank, RENDEZVOUS_TIMEOUT);
        results.add(JSON.readValue(bytes, RankResult.class));
      }
      return results;
    } catch (java.io.IOException e) {
      throw new IllegalStateException("rank results could not be exchanged: " + e.getMessage(), e);
    }
  }

  private ProgramReport report(List<RankResult> ranks) {
    ProgramTimes slowest = ranks.getFirst().times();
    boolean validated = true;
    for (RankResult result : ranks) {
      slowest = slowest.slowest(result.times());
      validated &= result.validation().passed();
    }
    double flops = program.flopsPerRank();
    double bytes = program.bytesReceivedPerRank();
    double shorter = Math.min(slowest.computeOnlyMillis(), slowest.communicationOnlyMillis());
    Double overlap =
        shorter > 0
            ? (slowest.computeOnlyMillis()
                    + slowest.communicationOnlyMillis()
                    - slowest.pipelinedMillis())
                / shorter
            : null;
    return new ProgramReport(
        ProgramReport.SCHEMA_VERSION,
        settings.name().wireName(),
        settings.m(),
        settings.n(),
        settings.k(),
        settings.chunks(),
        settings.streams(),
        settings.passes().stream().map(PassName::wireName).toList(),
        settings.dtype().wireName(),
        settings.backend().wireName(),
        topology.worldSize(),
        device.kind().wireName(),
        device.name(),
        settings.warmupIterations(),
        settings.iterations(),
        slowest,
        slowest.unpipelinedMillis() / slowest.pipelinedMillis(),
        overlap,
        perSecond(flops, slowest.unpipelinedMillis(), 1e12),
        perSecond(flops, slowest.pipelinedMillis(), 1e12),
        perSecond(bytes, slowest.unpipelinedMillis(), 1e9),
        perSecond(bytes, slowest.pipelinedMillis(), 1e9),
        validated,
        List.copyOf(transports),
        extraCommunicators,
        workerStreams,
        notes,
        ranks);
  }

  private static Double perSecond(double amount, double millis, double unit) {
    return amount > 0 && millis > 0 ? amount / (millis * 1e-3) / unit : null;
  }

  /** Serializes a report as JSON, for report files and the results ConfigMap. */
  public static String toJson(ProgramReport report) {
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(report);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("program report could not be written as JSON", e);
    }
  }
}
