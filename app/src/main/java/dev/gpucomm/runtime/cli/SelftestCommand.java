package dev.gpucomm.runtime.cli;

import dev.gpucomm.api.v1alpha1.BenchmarkSpec;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.Workload;
import dev.gpucomm.api.v1alpha1.WorkloadKind;
import dev.gpucomm.runtime.collective.DeviceBackends;
import dev.gpucomm.runtime.launch.LocalRun;
import dev.gpucomm.runtime.launch.RankSettings.RankMode;
import dev.gpucomm.runtime.spec.JobLoader;
import dev.gpucomm.runtime.spec.LoadedJob;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import java.util.Optional;

/**
 * {@code gpucomm selftest}: checks every algorithm of every collective in every dtype against a
 * float64 reference, across real rank processes; exits non-zero on any mismatch.
 */
final class SelftestCommand implements Command {
  static final int DEFAULT_CPU_WORLD = 4;

  @Override
  public String name() {
    return "selftest";
  }

  @Override
  public String summary() {
    return "check every algorithm x dtype x size against a float64 reference";
  }

  @Override
  public String synopsis() {
    return "[--device cpu|cuda] [--world N]";
  }

  @Override
  public List<Option> options() {
    return List.of(
        Option.value(
            "device", "DEVICE", "cpu or cuda (default: cuda when there are GPUs, else cpu)"),
        Option.value("world", "N", "ranks (default: the GPUs here, at most 8; 4 on the CPU)"));
  }

  @Override
  public int run(ParsedArgs args, CliContext context) {
    args.noPositional();
    Optional<String> device = args.value("device");
    int world = args.integer("world", 1, 64).orElseGet(() -> defaultWorld(device));
    CommJobSpec spec = new CommJobSpec();
    spec.setWorldSize(world);
    spec.setRanksPerPod(Math.min(world, 16));
    spec.setTimeoutSeconds(600);
    spec.setWorkload(
        new Workload()
            .withKind(WorkloadKind.BENCHMARK)
            .withBenchmark(new BenchmarkSpec().withSizes(List.of(16L))));
    CommJob job = new CommJob();
    job.setMetadata(new ObjectMetaBuilder().withName("selftest").build());
    job.setSpec(spec);
    LoadedJob loaded = new JobLoader().complete(job, "gpucomm selftest");
    LocalRun.Result result =
        LocalJobExecution.execute(
            name(), loaded, device, Optional.empty(), RankMode.SELFTEST, false, context);
    return LocalJobExecution.conclude(name(), result, context);
  }

  private static int defaultWorld(Optional<String> device) {
    if (device.map(text -> DeviceChoice.parse("selftest", text)).orElse(DeviceKind.CUDA)
        == DeviceKind.CPU) {
      return DEFAULT_CPU_WORLD;
    }
    DeviceBackends.Probe cuda = new DeviceBackends().probe(DeviceKind.CUDA);
    return cuda.usable() ? Math.min(cuda.deviceCount(), 8) : DEFAULT_CPU_WORLD;
  }
}
