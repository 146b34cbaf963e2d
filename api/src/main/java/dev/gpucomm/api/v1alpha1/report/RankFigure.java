package dev.gpucomm.api.v1alpha1.report;

/** Which of the ranks' figures a slowest rank was picked and judged by. */
public enum RankFigure {
  /**
   * Each rank's time per call outside its waits for peers ({@link RankTiming#ownMicros()}): it
   * names the rank that held the others up.
   */
  OWN_TIME,

  /**
   * Each rank's median time per call: where no own time was measured. A rank slowed by a cause of
   * its own slows its peers' calls as much, so this names it only by chance.
   */
  MEDIAN
}
