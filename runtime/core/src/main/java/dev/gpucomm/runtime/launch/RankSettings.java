package dev.gpucomm.runtime.launch;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.cpu.CpuBindMode;
import dev.gpucomm.runtime.numeric.VectorUnits;
import dev.gpucomm.runtime.rendezvous.RendezvousAddress;
import dev.gpucomm.runtime.rendezvous.RunId;
import dev.gpucomm.runtime.spec.AsciiIntegers;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Everything one rank process is told by its launcher, through environment variables (torchrun
 * style): who it is, where the job and the store are, and where results go.
 *
 * @param jobSource how error messages name the job file (the user's file in a local run)
 * @param device the backend to use; empty means the job's spec.device
 * @param deviceOrdinal which of the host's devices to open (local runs put all ranks on one host)
 * @param run the run the rank belongs to, which the store checks
 * @param reportDir where rank 0 writes report files; empty in a pod (results go to a ConfigMap)
 * @param errorFile where a failing rank writes its one-line error for the supervisor
 */
public record RankSettings(
    Path jobFile,
    String jobSource,
    int rank,
    int localRank,
    int worldSize,
    int ranksPerPod,
    int deviceOrdinal,
    Optional<DeviceKind> device,
    RendezvousAddress rendezvous,
    RunId run,
    Optional<Path> reportDir,
    Optional<Path> errorFile,
    RankMode mode,
    ProgressStyle progress,
    boolean dumpIr,
    boolean supervised) {

  /** What the rank runs. */
  public enum RankMode {
    /** The job's workload. */
    JOB,
    /** Every algorithm, dtype and a few sizes, checked against the reference. */
    SELFTEST
  }

  /** How rank 0 shows progress. */
  public enum ProgressStyle {
    LIVE,
    LINES,
    OFF
  }

  public static final Path POD_JOB_FILE = Path.of("/etc/gpucomm/job.json");

  public RankTopology topology() {
    return new RankTopology(rank, worldSize, localRank, ranksPerPod);
  }

  /** These settings for a rank whose supervisor reads its error from {@code file}. */
  public RankSettings supervisedWith(Path file) {
    return new RankSettings(
        jobFile,
        jobSource,
        rank,
        localRank,
        worldSize,
        ranksPerPod,
        deviceOrdinal,
        device,
        rendezvous,
        run,
        reportDir,
        Optional.of(file),
        mode,
        progress,
        dumpIr,
        true);
  }

  /** Reads the settings a launcher (or a user starting ranks by hand) put in the environment. */
  public static RankSettings fromEnv(Map<String, String> env) {
    int worldSize = positive(env, EnvVars.RANK_WORLD_SIZE, null);
    int rank = nonNegative(env, EnvVars.RANK, null);
    if (rank >= worldSize) {
      throw new UsageException(
          EnvVars.RANK + ": " + rank + " is outside the world of " + worldSize + " ranks");
    }
    int ranksPerPod = positive(env, EnvVars.RANKS_PER_POD, String.valueOf(worldSize));
    if (worldSize % ranksPerPod != 0) {
      throw new UsageException(
          EnvVars.RANKS_PER_POD
              + ": "
              + ranksPerPod
              + " does not divide the world of "
              + worldSize);
    }
    int localRank = nonNegative(env, EnvVars.LOCAL_RANK, String.valueOf(rank % ranksPerPod));
    if (localRank >= ranksPerPod) {
      throw new UsageException(
          EnvVars.LOCAL_RANK
              + ": "
              + localRank
              + " is not below "
              + EnvVars.RANKS_PER_POD
              + " "
              + ranksPerPod);
    }
    Optional<DeviceKind> device = Optional.empty();
    String deviceText = env.get(EnvVars.DEVICE);
    if (deviceText != null && !deviceText.isBlank()) {
      device =
          Optional.of(
              DeviceKind.fromWireName(deviceText)
                  .orElseThrow(
                      () ->
                          new UsageException(
                              EnvVars.DEVICE
                                  + ": unknown value '"
                                  + deviceText
                                  + "' (expected "
                                  + DeviceKind.wireNames()
                                  + ")")));
    }
    String mode = env.getOrDefault(EnvVars.MODE, "job");
    RankMode rankMode =
        switch (mode) {
          case "job", "" -> RankMode.JOB;
          case "selftest" -> RankMode.SELFTEST;
          default ->
              throw new UsageException(
                  EnvVars.MODE + ": unknown value '" + mode + "' (expected job, selftest)");
        };
    requireKnownSwitches(env);
    Path jobFile = Path.of(env.getOrDefault(EnvVars.JOB_FILE, POD_JOB_FILE.toString()));
    return new RankSettings(
        jobFile,
        env.getOrDefault(EnvVars.JOB_SOURCE, jobFile.toString()),
        rank,
        localRank,
        worldSize,
        ranksPerPod,
        nonNegative(env, EnvVars.DEVICE_ORDINAL, String.valueOf(localRank)),
        device,
        RendezvousAddress.parse(env.get(EnvVars.RENDEZVOUS), EnvVars.RENDEZVOUS),
        RunId.parse(env.get(EnvVars.RUN_ID), EnvVars.RUN_ID),
        pathOf(env, EnvVars.REPORT_DIR),
        pathOf(env, EnvVars.ERROR_FILE),
        rankMode,
        progressOf(env.getOrDefault(EnvVars.PROGRESS, "lines")),
        "1".equals(env.get(EnvVars.DUMP_IR)),
        "1".equals(env.get(EnvVars.SUPERVISED)));
  }

  /**
   * Every variable {@link #toEnv} may set. A launcher clears them all before setting a rank's own:
   * one left over from the launcher's environment (a GPUCOMM_REPORT_DIR given to {@code gpucomm
   * launch}, say) would otherwise reach ranks that were meant to have none.
   */
  public static final Set<String> SET_BY_LAUNCHER =
      Set.of(
          EnvVars.JOB_FILE,
          EnvVars.JOB_SOURCE,
          EnvVars.RANK,
          EnvVars.LOCAL_RANK,
          EnvVars.RANK_WORLD_SIZE,
          EnvVars.RANKS_PER_POD,
          EnvVars.DEVICE_ORDINAL,
          EnvVars.DEVICE,
          EnvVars.RENDEZVOUS,
          EnvVars.RUN_ID,
          EnvVars.REPORT_DIR,
          EnvVars.ERROR_FILE,
          EnvVars.MODE,
          EnvVars.PROGRESS,
          EnvVars.DUMP_IR,
          EnvVars.SUPERVISED);

  /** The environment a launcher sets so that {@link #fromEnv} reads these settings back. */
  public Map<String, String> toEnv() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put(EnvVars.JOB_FILE, jobFile.toString());
    env.put(EnvVars.JOB_SOURCE, jobSource);
    env.put(EnvVars.RANK, String.valueOf(rank));
    env.put(EnvVars.LOCAL_RANK, String.valueOf(localRank));
    env.put(EnvVars.RANK_WORLD_SIZE, String.valueOf(worldSize));
    env.put(EnvVars.RANKS_PER_POD, String.valueOf(ranksPerPod));
    env.put(EnvVars.DEVICE_ORDINAL, String.valueOf(deviceOrdinal));
    device.ifPresent(kind -> env.put(EnvVars.DEVICE, kind.wireName()));
    env.put(EnvVars.RENDEZVOUS, rendezvous.toString());
    if (!run.equals(RunId.NONE)) {
      env.put(EnvVars.RUN_ID, run.value());
    }
    reportDir.ifPresent(dir -> env.put(EnvVars.REPORT_DIR, dir.toString()));
    errorFile.ifPresent(file -> env.put(EnvVars.ERROR_FILE, file.toString()));
    env.put(EnvVars.MODE, mode == RankMode.SELFTEST ? "selftest" : "job");
    env.put(EnvVars.PROGRESS, progress.name().toLowerCase(java.util.Locale.ROOT));
    if (dumpIr) {
      env.put(EnvVars.DUMP_IR, "1");
    }
    if (supervised) {
      env.put(EnvVars.SUPERVISED, "1");
    }
    return env;
  }

  /**
   * Refuses a user's switch for the ranks that is set to a value it does not know; a launcher calls
   * it too, to refuse before any rank starts.
   */
  public static void requireKnownSwitches(Map<String, String> env) {
    requireOnOrOff(env, VectorUnits.SWITCH);
    requireOnOrOff(env, EnvVars.PROGRAM_ALIGN);
    CpuBindMode.fromEnv(env);
  }

  /**
   * A switch that is read where no error can be reported (a class's constant) and treats anything
   * but "off" as on: a "0" or "false" meant as off must not pass unnoticed.
   */
  private static void requireOnOrOff(Map<String, String> env, String name) {
    String value = env.get(name);
    if (value != null && !value.isBlank() && !value.equals("on") && !value.equals("off")) {
      throw new UsageException(name + ": unknown value '" + value + "' (expected on, off)");
    }
  }

  private static ProgressStyle progressOf(String text) {
    return switch (text) {
      case "live" -> ProgressStyle.LIVE;
      case "lines" -> ProgressStyle.LINES;
      case "off" -> ProgressStyle.OFF;
      default ->
          throw new UsageException(
              EnvVars.PROGRESS + ": unknown value '" + text + "' (expected live, lines, off)");
    };
  }

  /**
   * Where the rank of {@code env} writes its error, read alone: the rest of the settings may be
   * what the rank has to report.
   */
  public static Optional<Path> errorFileOf(Map<String, String> env) {
    return pathOf(env, EnvVars.ERROR_FILE);
  }

  private static Optional<Path> pathOf(Map<String, String> env, String name) {
    String value = env.get(name);
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(Path.of(value));
  }

  private static int positive(Map<String, String> env, String name, String fallback) {
    int value = integer(env, name, fallback);
    if (value < 1) {
      throw new UsageException(name + ": " + value + " is below the minimum 1");
    }
    return value;
  }

  private static int nonNegative(Map<String, String> env, String name, String fallback) {
    int value = integer(env, name, fallback);
    if (value < 0) {
      throw new UsageException(name + ": " + value + " is below the minimum 0");
    }
    return value;
  }

  private static int integer(Map<String, String> env, String name, String fallback) {
    String text = env.get(name);
    if (text == null || text.isBlank()) {
      if (fallback == null) {
        throw new UsageException(name + ": required (set by gpucomm launch or gpucomm run)");
      }
      text = fallback;
    }
    try {
      return AsciiIntegers.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new UsageException(name + ": '" + text + "' is not an integer");
    }
  }
}
