package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.BenchmarkSpec;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.Workload;
import dev.gpucomm.api.v1alpha1.WorkloadKind;
import java.util.List;

/** CommJobs the tests build in code. */
final class TestJobs {
  private TestJobs() {}

  /** Makes {@code job} a CPU benchmark its validation passes, as a job that may really run. */
  static CommJob cpuBenchmark(CommJob job) {
    job.getSpec().setDevice(DeviceKind.CPU);
    job.getSpec()
        .setWorkload(
            new Workload()
                .withKind(WorkloadKind.BENCHMARK)
                .withBenchmark(new BenchmarkSpec().withTokens(List.of(32))));
    return job;
  }
}
