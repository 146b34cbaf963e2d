package dev.gpucomm.runtime.launch;

import dev.gpucomm.runtime.device.cpu.SharedMemoryLeftovers;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Starts one JVM per rank and watches them like torchrun does: when one fails, the others get a
 * short grace period to fail on their own (they usually notice through the store), then are
 * stopped; the result names the rank whose failure came first. The job's time limit stops all.
 */
public final class RankSupervisor {
  /** How long the other ranks may take to exit on their own after the first failure. */
  static final Duration FAILURE_GRACE = Duration.ofSeconds(2);

  /** How long to wait for the rank that others saw die, when only they have reported so far. */
  static final Duration PEER_FAILURE_GRACE = Duration.ofSeconds(10);

  /** How long a rank may stay stopped (SIGSTOP) before the job fails naming it. */
  static final Duration STOPPED_LIMIT = Duration.ofSeconds(30);

  /** How often the ranks' process states are looked at. */
  private static final Duration STOPPED_CHECK = Duration.ofSeconds(1);

  /** How long a stopped rank gets between SIGTERM and SIGKILL. */
  static final Duration STOP_GRACE = Duration.ofSeconds(3);

  private final JavaCommand java;
  private final Map<String, String> baseEnvironment;
  private final OutputStream output;
  private final Duration stoppedLimit;

  /**
   * @param baseEnvironment variables added to every rank's environment (on top of this JVM's)
   * @param output where the ranks' standard output goes (rank 0 prints the results there); their
   *     standard error is copied to this process's as it comes, so that a live progress line
   *     reaches the terminal (less the JVM's notice of the Vector API module, {@link
   *     RankErrorCopier})
   */
  public RankSupervisor(
      JavaCommand java, Map<String, String> baseEnvironment, OutputStream output) {
    this(java, baseEnvironment, output, STOPPED_LIMIT);
  }

  /** A supervisor that fails a job once a rank has been stopped for {@code stoppedLimit}. */
  RankSupervisor(
      JavaCommand java,
      Map<String, String> baseEnvironment,
      OutputStream output,
      Duration stoppedLimit) {
    this.output = output;
    // a rank's output is copied byte for byte: it must be in the charset of where it goes, not
    // in its own locale's (a POSIX locale would turn the reports' µ and · into '?')
    this.java = java.writingIn(charsetOf(output), System.err.charset());
    this.baseEnvironment = Map.copyOf(baseEnvironment);
    this.stoppedLimit = stoppedLimit;
  }

  /** The charset {@code output} writes text in: a PrintStream's own, else this JVM's stdout's. */
  private static Charset charsetOf(OutputStream output) {
    return output instanceof PrintStream printing ? printing.charset() : System.out.charset();
  }

  private record Exit(int rank, int code, long atNanos) {}

  private record Running(
      RankSettings settings, Process process, Path errorFile, List<Thread> copiers) {}

  /** Runs the ranks to completion (or failure, or {@code timeLimit}); blocks until all are gone. */
  public SupervisionResult supervise(List<RankSettings> ranks, Duration timeLimit) {
    return supervise(ranks, timeLimit, () -> {});
  }

  /**
   * {@link #supervise(List, Duration)}; if this process is stopped meanwhile (Ctrl-C, SIGTERM), the
   * ranks are killed, what they leave is removed, and then {@code onShutdown} runs (the caller's
   * own cleanup): no code after a signal runs otherwise.
   */
  public SupervisionResult supervise(
      List<RankSettings> ranks, Duration timeLimit, Runnable onShutdown) {
    Path errorDir;
    try {
      Path temporary = Path.of(System.getProperty("java.io.tmpdir"));
      OwnedTemporaryDirectory.removeAbandoned(temporary, ERROR_DIR_PREFIX);
      errorDir = OwnedTemporaryDirectory.create(temporary, ERROR_DIR_PREFIX);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for rank error files", e);
    }
    // read by the shutdown hook's thread while ranks are still being started
    Map<Integer, Running> running = new ConcurrentSkipListMap<>();
    BlockingQueue<Exit> exits = new LinkedBlockingQueue<>();
    AtomicBoolean hookRan = new AtomicBoolean();
    Thread stopOnShutdown =
        new Thread(
            () -> {
              synchronized (hookRan) {
                hookRan.set(true); // no rank starts after this
              }
              kill(running);
              // what the killed ranks printed last is still in their pipes
              drainOutput(running, OUTPUT_DRAIN);
              deleteQuietly(errorDir);
              onShutdown.run();
            });
    Runtime.getRuntime().addShutdownHook(stopOnShutdown);
    try {
      for (RankSettings rank : ranks) {
        synchronized (hookRan) {
          if (hookRan.get()) {
            // A rank started now would outlive this process, and report a failure of its own
            // (its job file is gone) after the interruption.
            break;
          }
          Path errorFile = errorDir.resolve("rank-" + rank.rank() + ".err");
          Process process = start(rank, errorFile);
          Thread copier =
              Thread.ofVirtual().name("rank-" + rank.rank() + "-stdout").start(() -> copy(process));
          Thread errorCopier =
              Thread.ofVirtual()
                  .name("rank-" + rank.rank() + "-stderr")
                  .start(() -> RankErrorCopier.copy(process.getErrorStream(), System.err));
          running.put(
              rank.rank(), new Running(rank, process, errorFile, List.of(copier, errorCopier)));
          // waitFor, not onExit: onExit's callbacks run on the common fork-join pool, which a
          // supervisor running on that pool (one thread of it on a 2-CPU host) would never free
          Thread.ofVirtual()
              .name("rank-" + rank.rank() + "-exit")
              .start(
                  () -> exits.add(new Exit(rank.rank(), exitCodeOf(process), System.nanoTime())));
        }
      }
      SupervisionResult result = await(running, exits, timeLimit);
      for (Running rank : running.values()) {
        for (Thread copier : rank.copiers()) {
          copier.join(STOP_GRACE); // all of a rank's output comes before the verdict
        }
      }
      if (hookRan.get()) {
        // The ranks died of the hook's SIGKILL, not on their own: no verdict, the hook speaks.
        awaitHalt();
      }
      return result;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while supervising the ranks", e);
    } finally {
      kill(running);
      try {
        Runtime.getRuntime().removeShutdownHook(stopOnShutdown);
      } catch (IllegalStateException shuttingDown) {
        // The hook is running already.
      }
      deleteQuietly(errorDir);
    }
  }

  /** Waits for {@code process} to end; its exit code. */
  private static int exitCodeOf(Process process) {
    while (true) {
      try {
        return process.waitFor();
      } catch (InterruptedException e) {
        // nothing interrupts this thread but the JVM's exit, which ends it anyway
      }
    }
  }

  private static final String ERROR_DIR_PREFIX = "gpucomm-ranks-";

  /** How long an interrupted launcher waits, in all, for the ranks' last output. */
  private static final Duration OUTPUT_DRAIN = Duration.ofMillis(500);

  /** Waits, at most {@code limit} in all, until every rank's output has been copied. */
  private static void drainOutput(Map<Integer, Running> running, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    for (Running rank : running.values()) {
      for (Thread copier : rank.copiers()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        try {
          copier.join(Duration.ofNanos(left));
        } catch (InterruptedException e) {
          return; // the JVM is on its way out
        }
      }
    }
  }

  /** Blocks this thread until the exiting JVM halts, so that it reports nothing more. */
  private static void awaitHalt() {
    CountDownLatch never = new CountDownLatch(1);
    while (true) {
      try {
        never.await();
      } catch (InterruptedException e) {
        // keep waiting: the JVM is on its way out
      }
    }
  }

  private Process start(RankSettings rank, Path errorFile) {
    RankSettings supervised = rank.supervisedWith(errorFile);
    ProcessBuilder builder =
        new ProcessBuilder(java.command(List.of("rank")))
            .redirectInput(ProcessBuilder.Redirect.INHERIT)
            // piped to leave out the JVM's notice of the Vector API module (RankErrorCopier)
            .redirectError(ProcessBuilder.Redirect.PIPE)
            .redirectOutput(ProcessBuilder.Redirect.PIPE);
    builder.environment().putAll(baseEnvironment);
    builder.environment().keySet().removeAll(RankSettings.SET_BY_LAUNCHER);
    builder.environment().putAll(supervised.toEnv());
    try {
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start rank " + rank.rank() + ": " + e.getMessage(), e);
    }
  }

  /** Copies a rank's standard output as it comes; ranks other than 0 rarely print anything. */
  private void copy(Process process) {
    byte[] buffer = new byte[8192];
    try (var in = process.getInputStream()) {
      int read;
      while ((read = in.read(buffer)) >= 0) {
        synchronized (output) {
          output.write(buffer, 0, read);
          output.flush();
        }
      }
    } catch (IOException e) {
      // The rank is gone; what it printed so far has been copied.
    }
  }

  private SupervisionResult await(
      Map<Integer, Running> running, BlockingQueue<Exit> exits, Duration timeLimit) {
    long deadline = System.nanoTime() + timeLimit.toNanos();
    List<Exit> failures = new ArrayList<>();
    Set<Integer> exited = new HashSet<>();
    StoppedRankWatch stoppedRanks = new StoppedRankWatch(stoppedLimit);
    while (exited.size() < running.size()) {
      Exit exit;
      long left = Math.max(0, deadline - System.nanoTime());
      try {
        exit = exits.poll(Math.min(left, STOPPED_CHECK.toNanos()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        exit = null;
        left = 0;
      }
      if (exit == null && left > STOPPED_CHECK.toNanos()) {
        Optional<Integer> stoppedRank = stoppedRanks.check(pids(running), System.nanoTime());
        if (stoppedRank.isPresent()) {
          return stoppedRankFailed(
              stoppedRank.get(),
              "was stopped (SIGSTOP, SIGTSTP or a debugger) for "
                  + stoppedRanks.limit().toSeconds()
                  + " s, holding up every other rank",
              running);
        }
        continue;
      }
      if (exit == null) {
        List<Integer> stillRunning = alive(running);
        stop(running);
        return new SupervisionResult.TimedOut(timeLimit, stillRunning);
      }
      exited.add(exit.rank());
      if (failed(exit, running)) {
        failures.add(exit);
        break;
      }
    }
    if (failures.isEmpty()) {
      return new SupervisionResult.Succeeded(running.size());
    }
    // Give the others a moment to fail on their own: their errors help choose the first cause.
    // While every failure so far only reports another rank's departure, wait longer for that
    // rank's own error (a failing JVM can take a while to write it and exit on a busy host).
    long start = System.nanoTime();
    while (exited.size() < running.size()) {
      long grace =
          onlyPeerFailures(failures, running)
              ? PEER_FAILURE_GRACE.toNanos()
              : FAILURE_GRACE.toNanos();
      long left = start + grace - System.nanoTime();
      if (left <= 0) {
        break;
      }
      try {
        Exit exit = exits.poll(left, TimeUnit.NANOSECONDS);
        if (exit != null) {
          exited.add(exit.rank());
          if (failed(exit, running)) {
            failures.add(exit);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (onlyPeerFailures(failures, running)) {
      // every rank that failed saw another go silent: a stopped rank falls silent without dying,
      // and is the cause, though it has not been stopped for the whole limit yet
      Optional<Integer> stoppedRank = stoppedRanks.stoppedNow(pids(running));
      if (stoppedRank.isPresent()) {
        return stoppedRankFailed(
            stoppedRank.get(),
            "was stopped (SIGSTOP, SIGTSTP or a debugger) while the others waited for it",
            running);
      }
    }
    List<Integer> stopped = new ArrayList<>();
    for (Map.Entry<Integer, Running> rank : running.entrySet()) {
      if (exited.contains(rank.getKey())) {
        continue;
      }
      Process process = rank.getValue().process();
      if (process.isAlive()) {
        stopped.add(rank.getKey());
      } else {
        // Exited on its own a moment ago; its exit event is still on its way.
        Exit exit = new Exit(rank.getKey(), process.exitValue(), System.nanoTime());
        if (failed(exit, running)) {
          failures.add(exit);
        }
      }
    }
    stop(running);
    return firstCause(failures, running, stopped);
  }

  /** A stopped rank fails the job by name, {@code what} saying how; the others are stopped too. */
  private static SupervisionResult stoppedRankFailed(
      int rank, String what, Map<Integer, Running> running) {
    List<Integer> others = alive(running).stream().filter(r -> r != rank).toList();
    // SIGKILL, which a stopped process does not need to be resumed for
    running.get(rank).process().destroyForcibly();
    stop(running);
    return new SupervisionResult.RankFailed(
        rank, new RankError(RankError.Kind.FAILURE, what), others);
  }

  private static Map<Integer, Long> pids(Map<Integer, Running> running) {
    Map<Integer, Long> pids = new TreeMap<>();
    running.forEach(
        (rank, process) -> {
          if (process.process().isAlive()) {
            pids.put(rank, process.process().pid());
          }
        });
    return pids;
  }

  private static boolean onlyPeerFailures(List<Exit> failures, Map<Integer, Running> running) {
    return failures.stream()
        .allMatch(
            exit ->
                RankError.readFrom(running.get(exit.rank()).errorFile())
                    .map(error -> error.kind() == RankError.Kind.PEER)
                    .orElse(false));
  }

  /**
   * The earliest failure that is not a consequence of another rank's, else the earliest. Ranks the
   * supervisor had to stop count too when they left an error: a rank that failed may still be
   * shutting down when the peers that noticed its departure have already exited.
   */
  private static SupervisionResult firstCause(
      List<Exit> failures, Map<Integer, Running> running, List<Integer> stopped) {
    record Failure(int rank, long atNanos, RankError error) {}
    List<Failure> explained = new ArrayList<>();
    for (Exit exit : failures) {
      RankError error =
          RankError.readFrom(running.get(exit.rank()).errorFile())
              .orElseGet(
                  () ->
                      new RankError(
                          RankError.Kind.FAILURE,
                          exitDescription(
                              exit.code(),
                              RankCompletion.started(running.get(exit.rank()).errorFile()))));
      explained.add(new Failure(exit.rank(), exit.atNanos(), error));
    }
    for (int rank : stopped) {
      RankError.readFrom(running.get(rank).errorFile())
          .ifPresent(error -> explained.add(new Failure(rank, Long.MAX_VALUE, error)));
    }
    Failure first =
        explained.stream()
            .min(
                Comparator.comparing((Failure f) -> f.error().kind() == RankError.Kind.PEER)
                    .thenComparingLong(Failure::atNanos))
            .orElseThrow();
    List<Integer> reallyStopped = stopped.stream().filter(rank -> rank != first.rank()).toList();
    return new SupervisionResult.RankFailed(first.rank(), first.error(), reallyStopped);
  }

  /** A non-zero status, or 0 from a rank that never marked itself finished. */
  private static boolean failed(Exit exit, Map<Integer, Running> running) {
    return exit.code() != 0 || !RankCompletion.finished(running.get(exit.rank()).errorFile());
  }

  private static String exitDescription(int code, boolean started) {
    if (code <= 128 && !started) {
      // the JVM itself ended: an option it refuses (-XX:+Misspelt, -Xmx1k) or one that only
      // prints (-version), from any of the variables the JVM or the launcher reads
      return "exited with code "
          + code
          + " before it started the rank: its JVM ended first (see its output above; an option"
          + " in GPUCOMM_JAVA_OPTS, JDK_JAVA_OPTIONS or JAVA_TOOL_OPTIONS does that)";
    }
    if (code == 0) {
      return "exited with code 0 before it finished, without an error message";
    }
    if (code > 128) {
      String signal =
          switch (code - 128) {
            case 9 -> "SIGKILL, often the out-of-memory killer";
            case 6 -> "SIGABRT";
            case 11 -> "SIGSEGV";
            case 15 -> "SIGTERM";
            default -> "signal " + (code - 128);
          };
      return "exited with code " + code + " (" + signal + ") without an error message";
    }
    return "exited with code " + code + " without an error message (see its output above)";
  }

  private static List<Integer> alive(Map<Integer, Running> running) {
    return running.entrySet().stream()
        .filter(e -> e.getValue().process().isAlive())
        .map(Map.Entry::getKey)
        .toList();
  }

  private static void stop(Map<Integer, Running> running) {
    running.values().forEach(r -> r.process().destroy());
    long end = System.nanoTime() + STOP_GRACE.toNanos();
    for (Running r : running.values()) {
      try {
        long left = Math.max(0, end - System.nanoTime());
        if (!r.process().waitFor(left, TimeUnit.NANOSECONDS)) {
          r.process().destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        r.process().destroyForcibly();
      }
    }
  }

  /**
   * Kills every rank still running, waits for it to be gone, and removes the shared-memory files of
   * every rank: one that died before its peers opened them could not.
   */
  private static void kill(Map<Integer, Running> running) {
    for (Running rank : running.values()) {
      try {
        rank.process().destroyForcibly().waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      SharedMemoryLeftovers.removeFilesOf(rank.process().pid());
    }
  }

  private static void deleteQuietly(Path dir) {
    try (var files = Files.list(dir)) {
      for (Path file : files.toList()) {
        Files.deleteIfExists(file);
      }
      Files.deleteIfExists(dir);
    } catch (IOException ignored) {
      // A temp directory left behind is harmless.
    }
  }
}
