package dev.gpucomm.runtime.workload;

/**
 * Work every rank of a job runs together (a benchmark sweep, a tuning sweep, a host-IR program). It
 * validates its own results and fails with a one-line message when one is wrong.
 */
public interface RankWorkload {
  /**
   * Runs on every rank. Rank 0 returns the job's result (gathered from all ranks through the
   * store); other ranks return {@link WorkloadResult#none()}.
   */
  WorkloadResult run(RankContext context);
}
