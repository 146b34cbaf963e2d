package dev.gpucomm.runtime.hostir.programs;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.hostir.interp.CommunicatorFactory;
import dev.gpucomm.runtime.hostir.interp.HostIrInterpreter;
import dev.gpucomm.runtime.hostir.interp.MemoryOperationsLookup;
import dev.gpucomm.runtime.hostir.interp.PrefixedKeyValueStore;
import dev.gpucomm.runtime.hostir.interp.SmPartition;
import dev.gpucomm.runtime.hostir.interp.StreamCommunicators;
import dev.gpucomm.runtime.hostir.interp.TimelineSpan;
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
 * One rank's run of a program workload. Each form of the program gets its own interpreter (its own
 * memory, one form at a time); worker streams get their own communicators from the factory (see
 * {@link StreamCommunicators}), shared by the forms since they never run at once.
 *
 * <p>With communicationSMs set on a GPU, every form runs under the same {@link SmPartition}; it
 * only touches work on worker streams, so the unpipelined reference (one stream) keeps every SM,
 * while the pipelined form and its compute and communication timed alone run split.
 */
final class ProgramRunner {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ProgramSettings settings;
  private final HostProgram program;
  private final Device device;
  private final Communicator communicator;
  private final CommunicatorFactory factory;
  private final KeyValueStore store;
  private final RankTopology topology;
  private final Duration rendezvousTimeout;
  private final List<String> notes = new ArrayList<>();
  private final Set<String> transports = new LinkedHashSet<>();
  private final SmPartition partition;
  private int workerStreams;
  private int extraCommunicators;

  ProgramRunner(
      ProgramSettings settings,
      Device device,
      Communicator communicator,
      CommunicatorFactory factory,
      KeyValueStore store,
      RankTopology topology,
      Duration rendezvousTimeout) {
    this.settings = settings;
    this.program = HostProgram.of(settings, topology.worldSize());
    this.device = device;
    this.communicator = communicator;
    this.factory = factory;
    this.store = store;
    this.topology = topology;
    this.rendezvousTimeout = rendezvousTimeout;
    this.partition = settings.smPartition(device.multiprocessors());
  }

  ProgramResult run() {
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
    if (settings.communicationSMs() > 0 && !partition.partitioned()) {
      notes.add(
          "communicationSMs ("
              + settings.communicationSMs()
              + ") is ignored: "
              + device.kind().wireName()
              + " devices have no multiprocessors to partition");
    }
    // Every rank counts its own workloads, so the n-th workload has the same keys on all ranks.
    long instance = store.add("hostir/workloads/rank-" + rank, 1);
    String namespace = "hostir/" + instance + "/";

    Validation validation;
    FormTimes times;
    List<TimelineSpan> timeline;
    try (HostData data = new HostData(program, reference.inputs(), rank);
        Stream main = device.createStream();
        RankAlignment alignment =
            RankAlignment.wantedOnEveryRank(
                    System.getenv(), store, namespace + "align", rank, rendezvousTimeout)
                ? RankAlignment.of(device, communicator)
                : null;
        ProgramTimer timer = new ProgramTimer(device, main, alignment);
        StreamCommunicators communicators =
            factory == null
                ? StreamCommunicators.shared(communicator)
                : StreamCommunicators.perStream(
                    communicator, factory, namespace, partition.communicationBlocks())) {
      Form forms = new Form(data, main, timer, communicators, namespace);
      MemorySegment[] referenceOutput = new MemorySegment[1];
      MemorySegment[] pipelinedOutput = new MemorySegment[1];
      double unpipelined;
      double pipelinedMillis;
      double computeOnly;
      double communicationOnly;
      try {
        unpipelined = forms.time("unpipelined", reference, referenceOutput);
        pipelinedMillis = forms.time("pipelined", pipelined, pipelinedOutput, true);
        workerStreams = forms.lastWorkerStreams;
        computeOnly = forms.time("compute-only", ProgramVariants.computeOnly(pipelined), null);
        communicationOnly =
            forms.time("communication-only", ProgramVariants.communicationOnly(pipelined), null);
        extraCommunicators = communicators.extraCommunicators();
        // Closing a communicator tells its peers to stop waiting for this rank: wait until every
        // rank is done with the per-stream communicators first.
        store.barrier(namespace + "forms-done", topology.worldSize(), rendezvousTimeout);
      } catch (RuntimeException | Error e) {
        // the per-stream communicators' collectives may never finish: aborted, not destroyed
        communicators.closeAfterFailure(e);
        throw e;
      }
      validation =
          new OutputValidator(program).validate(rank, referenceOutput[0], pipelinedOutput[0]);
      times = new FormTimes(unpipelined, pipelinedMillis, computeOnly, communicationOnly);
      timeline = forms.lastTimeline;
    }
    return report(gather(namespace, new RankResult(rank, times, validation, timeline)));
  }

  /** Runs and times the forms of the program, one interpreter at a time. */
  private final class Form {
    private final HostData data;
    private final Stream main;
    private final ProgramTimer timer;
    private final StreamCommunicators communicators;
    private final String namespace;
    int lastWorkerStreams;
    List<TimelineSpan> lastTimeline = List.of();

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
      return time(name, form, output, false);
    }

    /**
     * As {@link #time(String, Program, MemorySegment[])}; with {@code traced}, also runs the form
     * once more with events around its statements, after the timed runs, into {@link
     * #lastTimeline}.
     */
    double time(String name, Program form, MemorySegment[] output, boolean traced) {
      try (HostIrInterpreter interpreter =
          HostIrInterpreter.create(
              form,
              device,
              communicators,
              new PrefixedKeyValueStore(store, namespace + name + "/"),
              topology,
              rendezvousTimeout,
              MemoryOperationsLookup.of(device),
              partition)) {
        List<DeviceBuffer> inputs = form.inputs().stream().map(interpreter::buffer).toList();
        data.upload(device, inputs);
        // The first run creates streams, communicators and buffers and exchanges IPC handles; it
        // is never timed.
        interpreter.run(main);
        interpreter.synchronize(main);
        if (output != null) {
          output[0] = data.download(device, interpreter.buffer(form.outputs().getFirst()), main);
        }
        store.barrier(namespace + name + "/timing", topology.worldSize(), rendezvousTimeout);
        double millis =
            timer.medianMillis(interpreter, settings.warmupIterations(), settings.iterations());
        interpreter.synchronize(main);
        if (traced) {
          lastTimeline = interpreter.runTraced(main, timer::alignRanks);
        }
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
                : store.get(namespace + "result/" + rank, rendezvousTimeout);
        results.add(JSON.readValue(bytes, RankResult.class));
      }
      return results;
    } catch (java.io.IOException e) {
      throw new IllegalStateException("rank results could not be exchanged: " + e.getMessage(), e);
    }
  }

  private ProgramResult report(List<RankResult> ranks) {
    FormTimes slowest = ranks.getFirst().times();
    boolean validated = true;
    for (RankResult result : ranks) {
      slowest = slowest.slowest(result.times());
      validated &= result.validation().passed();
    }
    double flops = program.flopsPerRank();
    double bytes = program.bytesReceivedPerRank();
    double shorter = Math.min(slowest.computeOnlyMillis(), slowest.communicationOnlyMillis());
    double longer = Math.max(slowest.computeOnlyMillis(), slowest.communicationOnlyMillis());
    Double overlap =
        shorter > 0
            ? (slowest.computeOnlyMillis()
                    + slowest.communicationOnlyMillis()
                    - slowest.pipelinedMillis())
                / shorter
            : null;
    return new ProgramResult(
        ProgramResult.SCHEMA_VERSION,
        settings.name().wireName(),
        settings.m(),
        settings.n(),
        settings.k(),
        program.chunks(),
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
        longer > 0 ? slowest.unpipelinedMillis() / longer : null,
        overlap,
        perSecond(flops, slowest.unpipelinedMillis(), 1e12),
        perSecond(flops, slowest.pipelinedMillis(), 1e12),
        perSecond(bytes, slowest.unpipelinedMillis(), 1e9),
        perSecond(bytes, slowest.pipelinedMillis(), 1e9),
        validated,
        List.copyOf(transports),
        extraCommunicators,
        workerStreams,
        partition.changesAnything() ? partition : null,
        notes,
        ranks);
  }

  private static Double perSecond(double amount, double millis, double unit) {
    return amount > 0 && millis > 0 ? amount / (millis * 1e-3) / unit : null;
  }
}
