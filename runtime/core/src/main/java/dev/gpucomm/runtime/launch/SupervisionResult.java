package dev.gpucomm.runtime.launch;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/** How a set of rank processes ended. */
public sealed interface SupervisionResult {
  /** Exit code for the launcher: 0, 2 for a usage error in a rank, 1 otherwise. */
  int exitCode();

  /** One line for the user (and the termination message). */
  String message();

  /** Every rank exited with status 0. */
  record Succeeded(int ranks) implements SupervisionResult {
    @Override
    public int exitCode() {
      return 0;
    }

    @Override
    public String message() {
      return ranks + (ranks == 1 ? " rank finished" : " ranks finished");
    }
  }

  /**
   * A rank failed; the others were stopped.
   *
   * @param rank the rank whose failure came first (not merely a consequence of another's)
   * @param error its one-line error
   * @param stopped ranks the supervisor had to stop
   */
  record RankFailed(int rank, RankError error, List<Integer> stopped) implements SupervisionResult {
    public RankFailed {
      stopped = List.copyOf(stopped);
    }

    @Override
    public int exitCode() {
      return error.exitCode();
    }

    @Override
    public String message() {
      return "rank "
          + rank
          + " failed: "
          + error.message()
          + (stopped.isEmpty() ? "" : " (stopped " + ranksText(stopped) + ")");
    }
  }

  /** The job ran past its time limit; every rank still running was stopped. */
  record TimedOut(Duration limit, List<Integer> running) implements SupervisionResult {
    public TimedOut {
      running = List.copyOf(running);
    }

    @Override
    public int exitCode() {
      return 1;
    }

    @Override
    public String message() {
      return "job timed out after "
          + limit.toSeconds()
          + " s (spec.timeoutSeconds); stopped "
          + ranksText(running);
    }
  }

  private static String ranksText(List<Integer> ranks) {
    return (ranks.size() == 1 ? "rank " : "ranks ")
        + ranks.stream().map(String::valueOf).collect(Collectors.joining(", "));
  }
}
