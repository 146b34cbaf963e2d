package dev.gpucomm.runtime.hostir.programs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.ProgramSpec;
import dev.gpucomm.api.v1alpha1.report.ProgramReport;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.DeviceBackend;
import dev.gpucomm.runtime.collective.DeviceBackends;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.collective.cpu.CpuBackend;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.cpu.CpuDevice;
import dev.gpucomm.runtime.hostir.HostIrDump;
import dev.gpucomm.runtime.hostir.interp.CommunicatorFactory;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import dev.gpucomm.runtime.report.ReportFiles;
import dev.gpucomm.runtime.workload.ProgramWorkload;
import dev.gpucomm.runtime.workload.RankContext;
import dev.gpucomm.runtime.workload.RankMemory;
import dev.gpucomm.runtime.workload.WorkloadResult;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code program} workload: builds the job's host program, applies its passes, runs the program
 * without and with them on each rank's device, checks that both give the same result (and the exact
 * one), times both and the pipelined program's compute and communication alone, and gathers every
 * rank's figures into one {@link ProgramResult}.
 *
 * <p>The rank flow finds it through {@link java.util.ServiceLoader} as the {@link ProgramWorkload}
 * of this build and calls {@link #run(RankContext)} on every rank; tests and other callers with a
 * device and communicators of their own call {@link #run(ProgramSettings, Device, Communicator,
 * CommunicatorFactory, KeyValueStore, RankTopology, Duration)}.
 */
public final class HostIrProgramWorkload implements ProgramWorkload {
  /** The file with every figure of the run, every rank's included. */
  public static final String DETAILS = "program.json";

  /** The file with the program before and after each pass, when the IR is dumped. */
  public static final String HOST_IR = "host-ir.txt";

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Runs the job's program on this rank. Rank 0 returns the report (report.json and report.md of
   * kind program, program.json with every figure, timeline.json with the timeline of one traced
   * pipelined run of every rank, and host-ir.txt when the IR is dumped); the others return nothing.
   * With {@code dumpIr}, rank 0 also prints the program before and after each pass.
   *
   * @throws ProgramSpecException when the spec cannot run (a one-line message naming the field)
   * @throws IllegalStateException when a rank's result is wrong, naming the rank and the element
   */
  @Override
  public WorkloadResult run(RankContext context) {
    CommJobSpec spec = context.job().job().getSpec();
    ProgramSpec programSpec = spec.getWorkload() == null ? null : spec.getWorkload().getProgram();
    Device device = context.device();
    RankTopology topology = context.topology();
    ProgramSettings settings =
        ProgramSettings.resolve(programSpec, device.kind(), topology.worldSize());
    String dump =
        context.dumpIr() ? HostIrDump.of(programSpec, device.kind(), topology.worldSize()) : null;
    if (dump != null && context.isRankZero()) {
      System.out.print(dump);
      System.out.flush();
    }
    String startedAt = Instant.now().toString();
    ProgramResult result =
        run(
            settings,
            device,
            context.communicator(),
            CommunicatorFactory.of(backendOf(device), device, context.store(), topology),
            context.store(),
            topology,
            context.rendezvousTimeout());
    for (RankResult rank : result.ranks()) {
      if (!rank.validation().passed()) {
        throw new IllegalStateException(
            "program "
                + result.program()
                + " gave a wrong result on rank "
                + rank.rank()
                + ": "
                + rank.validation().failure());
      }
    }
    if (!context.isRankZero()) {
      return WorkloadResult.none();
    }
    ProgramReport jobReport =
        ProgramReports.of(
            result, context.job().name(), topology.localWorldSize(), hostName(), startedAt);
    Map<String, String> files = new LinkedHashMap<>(ReportFiles.render(jobReport));
    files.put(DETAILS, toJson(result));
    String timeline = ProgramTimelines.chromeTrace(result.ranks());
    if (timeline != null) {
      files.put(ProgramTimelines.FILE, timeline);
    }
    if (dump != null) {
      files.put(HOST_IR, dump);
    }
    return new WorkloadResult(ProgramSummary.markdown(result), files);
  }

  @Override
  public RankMemory memory(CommJob job, DeviceKind device) {
    CommJobSpec spec = job.getSpec();
    ProgramSpec program = spec.getWorkload() == null ? null : spec.getWorkload().getProgram();
    return ProgramMemory.of(program, device, spec.getWorldSize());
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown";
    }
  }

  /**
   * The backend that opened {@code device}, to build the worker streams' communicators: the CPU
   * backend is rebuilt from the device's own configuration (its job name and shared-memory
   * directory), others are found through {@link DeviceBackends}.
   */
  private static DeviceBackend backendOf(Device device) {
    if (device instanceof CpuDevice cpu) {
      return new CpuBackend(cpu.config());
    }
    DeviceBackends.Probe probe = new DeviceBackends().probe(device.kind());
    if (probe.backend() == null) {
      throw new IllegalStateException(
          "the " + device.kind() + " backend cannot build more communicators: " + probe.reason());
    }
    return probe.backend();
  }

  /**
   * Runs already resolved settings on this rank and returns the result every rank ends up with.
   *
   * @param communicator the rank's communicator (used on the main stream)
   * @param factory builds one more communicator per worker stream; null to use {@code communicator}
   *     everywhere, which only works for programs that post on one stream at a time
   */
  public static ProgramResult run(
      ProgramSettings settings,
      Device device,
      Communicator communicator,
      CommunicatorFactory factory,
      KeyValueStore store,
      RankTopology topology,
      Duration rendezvousTimeout) {
    return new ProgramRunner(
            settings, device, communicator, factory, store, topology, rendezvousTimeout)
        .run();
  }

  /** Serializes a result as JSON (program.json). */
  public static String toJson(ProgramResult result) {
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(result);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("program result could not be written as JSON", e);
    }
  }
}
