package dev.gpucomm.runtime.device.cpu;

import dev.gpucomm.runtime.launch.EnvVars;
import java.util.List;

/**
 * Where a CPU-backend rank runs: on CPUs of its own, or wherever the scheduler puts it, and why.
 *
 * <p>The CPUs the process may use are cut into {@code worldSize} consecutive shares as even as they
 * go, and rank {@code r} of the job takes the {@code r}-th: one CPU each when there are as many
 * CPUs as ranks, as MPI launchers bind by default, and more where there are spare ones, so that a
 * rank's own parallel work (a CPU matmul) keeps them. The rank number is the job's, not the pod's,
 * because pods of one job may share a host and its CPUs: indexing by local rank would put the first
 * rank of every pod on the same CPU. So a job binds only when all its ranks fit the CPUs one
 * process sees; a job larger than that runs unbound.
 */
public sealed interface CpuPlacement {

  /** The rank is bound to {@code cpus}, a share of {@code allowedCpus}. */
  record Bound(List<Integer> cpus, List<Integer> allowedCpus) implements CpuPlacement {
    public Bound {
      cpus = List.copyOf(cpus);
      allowedCpus = List.copyOf(allowedCpus);
    }
  }

  /** The rank is left to the scheduler, for {@code reason}. */
  record Unbound(String reason) implements CpuPlacement {}

  /**
   * Where rank {@code rank} of {@code worldSize} runs under {@code mode}, given the CPUs the
   * process may use in ascending order (empty when they could not be read).
   */
  static CpuPlacement choose(CpuBindMode mode, int rank, int worldSize, List<Integer> allowedCpus) {
    if (mode == CpuBindMode.NONE) {
      return new Unbound(EnvVars.CPU_BIND + "=" + CpuBindMode.NONE.wireName());
    }
    if (allowedCpus.isEmpty()) {
      return new Unbound("the CPUs this process may use are unknown");
    }
    int cpuCount = allowedCpus.size();
    if (worldSize > cpuCount) {
      return new Unbound(
          worldSize
              + " ranks share "
              + cpuCount
              + (cpuCount == 1 ? " CPU" : " CPUs")
              + " ("
              + CpuList.format(allowedCpus)
              + ")");
    }
    int first = (int) ((long) rank * cpuCount / worldSize);
    int end = (int) ((long) (rank + 1) * cpuCount / worldSize);
    return new Bound(allowedCpus.subList(first, end), allowedCpus);
  }
}
