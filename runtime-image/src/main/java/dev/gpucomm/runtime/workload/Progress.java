package dev.gpucomm.runtime.workload;

/** Where a sweep reports how far it got (rank 0 shows it; other ranks discard it). */
public interface Progress {
  /** A sweep of {@code total} points begins. */
  void start(String title, int total);

  /** Point {@code done} of the total finished; {@code line} says what was measured. */
  void advance(int done, String line);

  /** The sweep is over; a live display clears its line. */
  void finish();

  /** A progress that shows nothing. */
  static Progress silent() {
    return new Progress() {
      @Override
      public void start(String title, int total) {}

      @Override
      public void advance(int done, String line) {}

      @Override
      public void finish() {}
    };
  }
}
