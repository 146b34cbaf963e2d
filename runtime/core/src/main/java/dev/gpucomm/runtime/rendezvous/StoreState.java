package dev.gpucomm.runtime.rendezvous;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The store's data and everything that waits on it: keys, counters, barriers (which remember who
 * arrived), and which ranks are connected, left cleanly or disconnected. One lock, one condition:
 * every change wakes every waiter, which then re-checks its own predicate. That is cheap at the
 * scale of a job's rendezvous (tens of keys, at most thousands of ranks).
 */
final class StoreState {
  /** What a blocking request ends with. */
  record Outcome(byte status, byte[] value, String message) {
    static Outcome ok(byte[] value) {
      return new Outcome(StoreProtocol.OK, value, "");
    }

    static Outcome timeout(String message) {
      return new Outcome(StoreProtocol.TIMEOUT, new byte[0], message);
    }

    static Outcome failed(String message) {
      return new Outcome(StoreProtocol.FAILED, new byte[0], message);
    }

    static Outcome peerFailed(String message) {
      return new Outcome(StoreProtocol.PEER_FAILED, new byte[0], message);
    }
  }

  private enum RankStatus {
    CONNECTED,
    LEFT,
    DISCONNECTED
  }

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Map<String, byte[]> values = new HashMap<>();
  private final Map<String, TreeSet<Integer>> barriers = new HashMap<>();
  private final Map<Integer, RankStatus> ranks = new TreeMap<>();

  /** When each rank that sends heartbeats sent its last, in {@link System#nanoTime()}. */
  private final Map<Integer, Long> lastHeartbeat = new TreeMap<>();

  private int worldSize = -1;
  private String failure;
  private boolean closed;

  /**
   * The most ranks a store serves; a world is at most 4096 ranks (the CommJob's bound). It bounds
   * what a request's numbers can make the store hold (a barrier's missing ranks, say).
   */
  static final int MAX_RANKS = 1 << 16;

  /**
   * The most bytes of values, and the most keys, a store holds: a job's rendezvous stores ids,
   * handles and small results, far below; a client that sends more is refused, not kept.
   */
  static final long MAX_VALUE_BYTES = 256L << 20;

  static final int MAX_KEYS = 1 << 20;

  /**
   * The longest wait a request may ask for; longer ones wait this long (no overflow on the way).
   */
  static final Duration MAX_WAIT = Duration.ofDays(30);

  private long valueBytes;

  /** Whether the world size came from the job rather than from the first rank to connect. */
  private boolean worldOfTheJob;

  /** The run whose ranks this store serves; null serves any. */
  private RunId run;

  /**
   * A store for run {@code run} of a job of {@code worldSize} ranks, both known before any rank
   * connects.
   */
  static StoreState forRun(int worldSize, RunId run) {
    if (worldSize < 1 || worldSize > MAX_RANKS) {
      throw new IllegalArgumentException("world size " + worldSize + " outside 1.." + MAX_RANKS);
    }
    StoreState state = new StoreState();
    state.worldSize = worldSize;
    state.worldOfTheJob = true;
    state.run = run;
    return state;
  }

  /**
   * Registers a rank's connection; returns an error message, or null when accepted. A rank of
   * another run is refused before it can take the place of this run's rank of that number.
   */
  String hello(int rank, int world, RunId rankRun) {
    if (world < 1 || world > MAX_RANKS) {
      return "rank " + rank + " says the world has " + world + " ranks (1.." + MAX_RANKS + ")";
    }
    if (run != null && !run.equals(rankRun)) {
      return ("rank %d is of run %s, this store serves run %s (a rank of an earlier run or of"
              + " another job; every rank of a run names the same run)")
          .formatted(rank, rankRun, run);
    }
    lock.lock();
    try {
      if (worldSize < 0) {
        worldSize = world;
      } else if (worldSize != world) {
        return "rank "
            + rank
            + " says the world has "
            + world
            + " ranks, "
            + (worldOfTheJob ? "the job has " : "others said ")
            + worldSize;
      }
      if (rank < 0 || rank >= world) {
        return "rank " + rank + " is outside the world of " + world;
      }
      RankStatus previous = ranks.get(rank);
      if (previous == RankStatus.CONNECTED) {
        return "rank " + rank + " connected twice (two processes with RANK=" + rank + "?)";
      }
      ranks.put(rank, RankStatus.CONNECTED);
      changed.signalAll();
      return null;
    } finally {
      lock.unlock();
    }
  }

  Outcome set(String key, byte[] value) {
    lock.lock();
    try {
      String refusal = store(key, value);
      return refusal == null ? Outcome.ok(new byte[0]) : Outcome.failed(refusal);
    } finally {
      lock.unlock();
    }
  }

  /** Adds {@code delta} to the number {@code key} holds (0 when unset); answers the sum. */
  Outcome add(String key, long delta) {
    lock.lock();
    try {
      byte[] old = values.get(key);
      long sum;
      try {
        sum =
            Math.addExact(
                old == null ? 0 : Long.parseLong(new String(old, StandardCharsets.UTF_8)), delta);
      } catch (NumberFormatException | ArithmeticException e) {
        return Outcome.failed(
            "rendezvous: key '" + key + "' holds no number that " + delta + " can be added to");
      }
      byte[] text = Long.toString(sum).getBytes(StandardCharsets.UTF_8);
      String refusal = store(key, text);
      return refusal == null ? Outcome.ok(text) : Outcome.failed(refusal);
    } finally {
      lock.unlock();
    }
  }

  /** Stores {@code value} under {@code key} if the store's bounds allow; else says why not. */
  private String store(String key, byte[] value) {
    byte[] old = values.get(key);
    long after =
        old == null
            ? valueBytes + key.length() + value.length
            : valueBytes - old.length + value.length;
    if (after > MAX_VALUE_BYTES || (old == null && keys() >= MAX_KEYS)) {
      return refusal("key '" + key + "'");
    }
    values.put(key, value);
    valueBytes = after;
    changed.signalAll();
    return null;
  }

  /** Keys and barrier rounds held: both stay for the store's life. */
  private int keys() {
    return values.size() + barriers.size();
  }

  private static String refusal(String what) {
    return "rendezvous: the store holds at most %d MiB in %d keys; refusing %s"
        .formatted(MAX_VALUE_BYTES >> 20, MAX_KEYS, what);
  }

  Outcome get(String key, Duration timeout) throws InterruptedException {
    long start = System.nanoTime();
    lock.lock();
    try {
      return awaitLocked(
          start,
          timeout,
          () -> values.get(key),
          "while waiting for key '" + key + "'",
          " while waiting for key '" + key + "'",
          elapsed ->
              "rendezvous: key '"
                  + key
                  + "' not set after "
                  + elapsed
                  + " ("
                  + connectionSummary()
                  + ")");
    } finally {
      lock.unlock();
    }
  }

  Outcome barrier(String name, int round, int participants, int rank, Duration timeout)
      throws InterruptedException {
    if (participants < 1 || participants > MAX_RANKS || rank < 0 || rank >= MAX_RANKS) {
      return Outcome.failed(
          "rendezvous: barrier '%s' of %d participants from rank %d: outside 1..%d"
              .formatted(name, participants, rank, MAX_RANKS));
    }
    String label = "barrier '" + name + "'" + (round > 1 ? " (round " + round + ")" : "");
    String key = name + '\u0000' + round;
    long start = System.nanoTime();
    lock.lock();
    try {
      if (!barriers.containsKey(key)) {
        if (keys() >= MAX_KEYS || valueBytes + key.length() > MAX_VALUE_BYTES) {
          return Outcome.failed(refusal(label));
        }
        valueBytes += key.length();
      }
      TreeSet<Integer> arrived = barriers.computeIfAbsent(key, k -> new TreeSet<>());
      arrived.add(rank);
      changed.signalAll();
      return awaitLocked(
          start,
          timeout,
          () -> arrived.size() >= participants ? new byte[0] : null,
          "during " + label,
          " before " + label + " completed",
          elapsed ->
              "rendezvous: "
                  + label
                  + " timed out after "
                  + elapsed
                  + " "
                  + missingFromBarrier(arrived, participants));
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits, holding the lock, until {@code ready} gives a value, the store closes, a rank
   * disconnects, or {@code timeout} from {@code start} passes, in that order of precedence; each
   * failure says what was awaited ({@code closedWhile}, {@code failedWhile}, or the timeout message
   * built from the time waited).
   */
  private Outcome awaitLocked(
      long start,
      Duration timeout,
      Supplier<byte[]> ready,
      String closedWhile,
      String failedWhile,
      Function<String, String> timeoutMessage)
      throws InterruptedException {
    long deadline = start + bounded(timeout).toNanos();
    while (true) {
      byte[] value = ready.get();
      if (value != null) {
        return Outcome.ok(value);
      }
      if (closed) {
        return Outcome.failed("rendezvous: the store closed " + closedWhile);
      }
      if (failure != null) {
        return Outcome.peerFailed(failure + failedWhile);
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return Outcome.timeout(timeoutMessage.apply(seconds(System.nanoTime() - start)));
      }
      changed.awaitNanos(left);
    }
  }

  /** Waits until some rank disconnects (returns its message) or the store closes (null). */
  String awaitFailure() throws InterruptedException {
    lock.lock();
    try {
      while (failure == null && !closed) {
        changed.await();
      }
      return failure;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until every rank of the world has connected and gone again (cleanly or not), so that a
   * host closing the store cuts off no rank that still reads its last answer.
   */
  boolean awaitAllGone(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + bounded(timeout).toNanos();
    lock.lock();
    try {
      while (worldSize < 0
          || ranks.size() < worldSize
          || ranks.containsValue(RankStatus.CONNECTED)) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || closed) {
          return false;
        }
        changed.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** A heartbeat of {@code rank} arrived at {@code nanos}. */
  void heartbeat(int rank, long nanos) {
    lock.lock();
    try {
      if (ranks.get(rank) == RankStatus.CONNECTED) {
        lastHeartbeat.put(rank, nanos);
      }
    } finally {
      lock.unlock();
    }
  }

  /** The ranks whose heartbeats the store is watching now. */
  Set<Integer> beatingRanks() {
    lock.lock();
    try {
      return Set.copyOf(lastHeartbeat.keySet());
    } finally {
      lock.unlock();
    }
  }

  /** The rank closed its watch connection: it sends no more heartbeats, and none are missed. */
  void heartbeatsEnded(int rank) {
    lock.lock();
    try {
      lastHeartbeat.remove(rank);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Declares the ranks whose heartbeats stopped failed, as a crashed rank's disconnect does: once
   * one connected rank has been silent for longer than the limit at {@code nanos}, it and every
   * rank that fell silent with it are named together, and every open wait fails.
   */
  void checkHeartbeats(long nanos, Liveness liveness) {
    lock.lock();
    try {
      long limit = liveness.silenceLimit().toNanos();
      boolean anyOverdue =
          lastHeartbeat.entrySet().stream()
              .anyMatch(
                  beat ->
                      ranks.get(beat.getKey()) == RankStatus.CONNECTED
                          && nanos - beat.getValue() > limit);
      if (!anyOverdue) {
        return;
      }
      long shared = liveness.sharedSilence().toNanos();
      Set<Integer> silent =
          lastHeartbeat.entrySet().stream()
              .filter(beat -> ranks.get(beat.getKey()) == RankStatus.CONNECTED)
              .filter(beat -> nanos - beat.getValue() > shared)
              .map(Map.Entry::getKey)
              .collect(Collectors.toCollection(TreeSet::new));
      for (int rank : silent) {
        ranks.put(rank, RankStatus.DISCONNECTED);
        lastHeartbeat.remove(rank);
      }
      if (failure == null) {
        failure =
            "rendezvous: "
                + ranksText(silent)
                + " sent no heartbeat for "
                + seconds(limit)
                + " (their host or its network link is gone)";
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** The rank said goodbye: its connection closing is not a failure. */
  void left(int rank) {
    lock.lock();
    try {
      lastHeartbeat.remove(rank);
      ranks.put(rank, RankStatus.LEFT);
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** The longest reason a failed rank gives the others: one line, not a log. */
  static final int MAX_REASON_CHARS = 1000;

  /**
   * The rank failed and said why before leaving: every wait that is still open fails with its
   * reason. Its connection closing next changes nothing.
   */
  void failed(int rank, String reason) {
    String line = reason.replaceAll("\\s+", " ").strip();
    if (line.length() > MAX_REASON_CHARS) {
      line = line.substring(0, MAX_REASON_CHARS) + "…";
    }
    lock.lock();
    try {
      if (ranks.get(rank) == RankStatus.CONNECTED) {
        ranks.put(rank, RankStatus.DISCONNECTED);
        if (failure == null) {
          failure = "rendezvous: rank " + rank + " failed: " + line;
        }
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** The rank's connection closed without a goodbye: every wait that is still open fails. */
  void disconnected(int rank) {
    lock.lock();
    try {
      if (ranks.get(rank) == RankStatus.CONNECTED) {
        ranks.put(rank, RankStatus.DISCONNECTED);
        if (failure == null) {
          failure = "rendezvous: rank " + rank + " disconnected";
        }
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** The first rank failure seen, if any. */
  String failure() {
    lock.lock();
    try {
      return failure;
    } finally {
      lock.unlock();
    }
  }

  void close() {
    lock.lock();
    try {
      closed = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private String missingFromBarrier(TreeSet<Integer> arrived, int participants) {
    if (participants == worldSize || arrived.last() < participants) {
      Set<Integer> missing =
          IntStream.range(0, participants)
              .boxed()
              .filter(r -> !arrived.contains(r))
              .collect(Collectors.toCollection(TreeSet::new));
      return "waiting for "
          + ranksText(missing)
          + " ("
          + arrived.size()
          + " of "
          + participants
          + " arrived"
          + neverConnectedSuffix(missing)
          + ")";
    }
    return "waiting for "
        + (participants - arrived.size())
        + " more of "
        + participants
        + " (arrived: "
        + join(arrived)
        + ")";
  }

  private String neverConnectedSuffix(Set<Integer> missing) {
    Set<Integer> never =
        missing.stream()
            .filter(r -> !ranks.containsKey(r))
            .collect(Collectors.toCollection(TreeSet::new));
    return never.isEmpty() ? "" : "; never connected: " + join(never);
  }

  private String connectionSummary() {
    if (worldSize < 0) {
      return "no rank has connected";
    }
    Set<Integer> never =
        IntStream.range(0, worldSize)
            .boxed()
            .filter(r -> !ranks.containsKey(r))
            .collect(Collectors.toCollection(TreeSet::new));
    if (never.isEmpty()) {
      return "all " + worldSize + " ranks connected";
    }
    return ranksText(never) + " of " + worldSize + " never connected";
  }

  /**
   * {@code timeout} within 0..{@link #MAX_WAIT}: a client's number must not overflow a deadline.
   */
  static Duration bounded(Duration timeout) {
    if (timeout.isNegative()) {
      return Duration.ZERO;
    }
    return timeout.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : timeout;
  }

  private static String ranksText(Set<Integer> ranks) {
    return (ranks.size() == 1 ? "rank " : "ranks ") + join(ranks);
  }

  private static String join(Set<Integer> ranks) {
    return ranks.stream().map(String::valueOf).collect(Collectors.joining(", "));
  }

  private static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.1f s", nanos / (double) TimeUnit.SECONDS.toNanos(1));
  }
}
