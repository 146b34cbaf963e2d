package dev.gpucomm.runtime.cli;

import dev.gpucomm.api.v1alpha1.CommJobDefaults;

/** How the commands that build their own job (bench, selftest) place its ranks in pods. */
final class LocalPods {
  private LocalPods() {}

  /**
   * The most ranks per pod that divides {@code worldSize} evenly, as spec.worldSize must be a
   * multiple of spec.ranksPerPod: every rank in one pod up to 16, else as few pods as that allows
   * (20 ranks: 2 pods of 10; 17: 17 pods of 1).
   */
  static int ranksPerPod(int worldSize) {
    for (int ranks = Math.min(worldSize, CommJobDefaults.MAX_RANKS_PER_POD); ranks > 1; ranks--) {
      if (worldSize % ranks == 0) {
        return ranks;
      }
    }
    return 1;
  }
}
