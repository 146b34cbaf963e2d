package dev.gpucomm.runtime.device.cpu;

import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.cpu.LinuxCpuAffinity.AffinityException;
import java.io.PrintStream;
import java.util.List;

/**
 * Binds a CPU-backend rank process to the CPUs {@link CpuPlacement} picks, once at start-up, before
 * it allocates its buffers (so their pages come from that CPU's memory node) and before any thread
 * polls a flag; never for CUDA ranks, whose host threads only launch work.
 */
public final class CpuRankBinding {
  private static final String PREFIX = "cpu binding: ";

  /** How many processors the process could use before it was bound; 0 while unbound. */
  private static volatile int processorsBeforeBinding;

  private CpuRankBinding() {}

  /**
   * The processors the host offers this job's ranks: the process's own count, or, once a rank is
   * bound to its share, the count before, since what depends on it (whether every rank has a core
   * to spin on, the device's name) is about the host, not the share.
   */
  public static int hostProcessors() {
    int before = processorsBeforeBinding;
    return before > 0 ? before : Runtime.getRuntime().availableProcessors();
  }

  /**
   * Binds this process as {@code mode} asks and says so on {@code log}: each bound rank names its
   * CPUs; a reason that holds for every rank (the opt-out, too few CPUs) is said once per pod, by
   * its first rank, and a failed call by the rank it failed on.
   */
  public static CpuPlacement apply(CpuBindMode mode, RankTopology topology, PrintStream log) {
    CpuPlacement placement;
    try {
      placement = bind(mode, topology);
    } catch (AffinityException e) {
      log.println(PREFIX + "rank " + topology.rank() + " not bound to a CPU: " + e.getMessage());
      return new CpuPlacement.Unbound(e.getMessage());
    }
    switch (placement) {
      case CpuPlacement.Bound bound ->
          log.println(
              PREFIX
                  + "rank "
                  + topology.rank()
                  + (bound.cpus().size() == 1 ? " bound to CPU " : " bound to CPUs ")
                  + CpuList.format(bound.cpus())
                  + " (allowed "
                  + CpuList.format(bound.allowedCpus())
                  + ")");
      case CpuPlacement.Unbound unbound -> {
        if (topology.localRank() == 0) {
          log.println(PREFIX + "ranks not bound to CPUs: " + unbound.reason());
        }
      }
    }
    return placement;
  }

  private static CpuPlacement bind(CpuBindMode mode, RankTopology topology)
      throws AffinityException {
    List<Integer> allowed = mode == CpuBindMode.NONE ? List.of() : LinuxCpuAffinity.allowedCpus();
    CpuPlacement placement =
        CpuPlacement.choose(mode, topology.rank(), topology.worldSize(), allowed);
    if (placement instanceof CpuPlacement.Bound bound) {
      int before = Runtime.getRuntime().availableProcessors();
      LinuxCpuAffinity.bindProcess(bound.cpus());
      processorsBeforeBinding = before;
    }
    return placement;
  }
}
