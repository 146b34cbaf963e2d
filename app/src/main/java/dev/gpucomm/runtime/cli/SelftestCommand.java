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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gpucomm selftest}: checks every algorithm of every collective in every dtype against a
 * float64 reference, across real rank processes; exits non-zero on any mismatch.
 */
@Command(
    name = "selftest",
    customSynopsis = "gpucomm selftest [--device cpu|cuda] [--world N]",
    description = "check every algorithm x dtype x size against a float64 reference",
    descriptionHeading = "%n",
    optionListHeading = "%nOptions:%n",
    sortOptions = false)
final class SelftestCommand implements Callable<Integer> {
  static final int DEFAULT_CPU_WORLD = 4;
  private static final IntRange WORLD = new IntRange(1, 64);

  private final CliContext context;

  @Spec CommandSpec spec;

  @Option(
      names = "--device",
      paramLabel = "DEVICE",
      description = "cpu or cuda (default: cuda when there is a GPU for every rank, else cpu)")
  Optional<DeviceKind> device = Optional.empty();

  @Option(
      names = "--world",
      paramLabel = "N",
      description = "ranks (default: the GPUs here, at most 8; 4 on the CPU)")
  Integer world;

  SelftestCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    Integer chosen = WORLD.check(spec, "--world", world);
    int worldSize = chosen != null ? chosen : defaultWorld(device);
    CommJobSpec jobSpec = new CommJobSpec();
    jobSpec.setWorldSize(worldSize);
    jobSpec.setRanksPerPod(LocalPods.ranksPerPod(worldSize));
    jobSpec.setTimeoutSeconds(600);
    jobSpec.setWorkload(
        new Workload()
            .withKind(WorkloadKind.BENCHMARK)
            .withBenchmark(new BenchmarkSpec().withSizes(List.of(16L))));
    CommJob job = new CommJob();
    job.setMetadata(new ObjectMetaBuilder().withName("selftest").build());
    job.setSpec(jobSpec);
    LoadedJob loaded =
        new JobLoader()
            .complete(job, "gpucomm selftest")
            .withFieldSpelling(new FlagSpelling(Map.of("spec.worldSize", "--world")));
    LocalRun.Result result =
        LocalJobExecution.execute(
            "selftest", loaded, device, Optional.empty(), RankMode.SELFTEST, false, context);
    return LocalJobExecution.conclude("selftest", result, context);
  }

  private static int defaultWorld(Optional<DeviceKind> device) {
    if (device.orElse(DeviceKind.CUDA) == DeviceKind.CPU) {
      return DEFAULT_CPU_WORLD;
    }
    DeviceBackends.Probe cuda = new DeviceBackends().probe(DeviceKind.CUDA);
    return cuda.usable() ? Math.min(cuda.deviceCount(), 8) : DEFAULT_CPU_WORLD;
  }
}
