package dev.gpucomm.runtime.launch;

import dev.gpucomm.runtime.files.BoundedFile;
import dev.gpucomm.runtime.files.UnreadableFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;

/**
 * Notices a rank process that is stopped (SIGSTOP, SIGTSTP, a debugger) rather than slow: its peers
 * wait for it without end, so without this only the job's time limit would end the job, and without
 * naming the rank. A rank counts once it has been seen stopped for {@link #limit} in a row.
 *
 * <p>It reads the process state that Linux shows in {@code /proc/<pid>/stat}, so it sees the ranks
 * this launcher started; elsewhere it sees nothing and the time limit remains.
 */
final class StoppedRankWatch {
  private final Duration limit;
  private final LongFunction<Optional<Character>> stateOf;
  private final Map<Integer, Long> stoppedSinceNanos = new HashMap<>();

  StoppedRankWatch(Duration limit) {
    this(limit, StoppedRankWatch::procState);
  }

  StoppedRankWatch(Duration limit, LongFunction<Optional<Character>> stateOf) {
    this.limit = limit;
    this.stateOf = stateOf;
  }

  Duration limit() {
    return limit;
  }

  /**
   * The first of {@code pidsByRank} (rank to process id) seen stopped for the whole limit by now.
   */
  Optional<Integer> check(Map<Integer, Long> pidsByRank, long nowNanos) {
    for (Map.Entry<Integer, Long> rank : pidsByRank.entrySet()) {
      boolean stopped = stateOf.apply(rank.getValue()).map(s -> s == 'T' || s == 't').orElse(false);
      if (!stopped) {
        stoppedSinceNanos.remove(rank.getKey());
        continue;
      }
      long since = stoppedSinceNanos.computeIfAbsent(rank.getKey(), k -> nowNanos);
      if (nowNanos - since >= limit.toNanos()) {
        return Optional.of(rank.getKey());
      }
    }
    return Optional.empty();
  }

  /** The first of {@code pidsByRank} that is stopped now, however briefly so far. */
  Optional<Integer> stoppedNow(Map<Integer, Long> pidsByRank) {
    return pidsByRank.entrySet().stream()
        .filter(rank -> stateOf.apply(rank.getValue()).map(s -> s == 'T' || s == 't').orElse(false))
        .map(Map.Entry::getKey)
        .findFirst();
  }

  /** The state letter of {@code /proc/<pid>/stat}: the field after the command in parentheses. */
  static Optional<Character> procState(long pid) {
    String stat;
    try {
      stat = BoundedFile.readText(Path.of("/proc", Long.toString(pid), "stat"), 64 << 10);
    } catch (UnreadableFileException e) {
      return Optional.empty();
    }
    return stateIn(stat);
  }

  static Optional<Character> stateIn(String stat) {
    int close = stat.lastIndexOf(')');
    if (close < 0 || close + 2 >= stat.length()) {
      return Optional.empty();
    }
    return Optional.of(stat.charAt(close + 2));
  }
}
