package dev.gpucomm.runtime.launch;

import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.collective.DeviceBackends;
import dev.gpucomm.runtime.launch.RankSettings.ProgressStyle;
import dev.gpucomm.runtime.launch.RankSettings.RankMode;
import dev.gpucomm.runtime.rendezvous.RendezvousAddress;
import dev.gpucomm.runtime.rendezvous.RunId;
import dev.gpucomm.runtime.rendezvous.TcpStoreServer;
import dev.gpucomm.runtime.spec.AsciiIntegers;
import dev.gpucomm.runtime.spec.JobLoader;
import dev.gpucomm.runtime.spec.LoadedJob;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What one pod of a job runs ({@code gpucomm launch}): its ranksPerPod rank processes, with RANK,
 * LOCAL_RANK and WORLD_SIZE derived from the operator's GPUCOMM_* variables. Pod 0 also hosts the
 * rendezvous store, on the port of GPUCOMM_RENDEZVOUS, and keeps it up until every rank of every
 * pod has left.
 */
public final class PodLaunch {
  /** How long pod 0 keeps the store up for other pods' ranks after its own finished. */
  static final Duration STORE_LINGER = Duration.ofSeconds(60);

  /** The operator's contract, read from the environment. */
  public record PodSettings(
      String job,
      String namespace,
      int podIndex,
      int ranksPerPod,
      int worldSize,
      RendezvousAddress rendezvous,
      RunId run,
      Path jobFile,
      Optional<Path> reportDir) {

    public static PodSettings fromEnv(Map<String, String> env) {
      int worldSize = atLeast(env, EnvVars.WORLD_SIZE, 1);
      int ranksPerPod = atLeast(env, EnvVars.RANKS_PER_POD, 1);
      if (worldSize % ranksPerPod != 0) {
        throw new UsageException(
            EnvVars.RANKS_PER_POD
                + ": "
                + ranksPerPod
                + " does not divide "
                + EnvVars.WORLD_SIZE
                + " "
                + worldSize);
      }
      int podIndex = atLeast(env, EnvVars.POD_INDEX, 0);
      if (podIndex >= worldSize / ranksPerPod) {
        throw new UsageException(
            EnvVars.POD_INDEX
                + ": "
                + podIndex
                + " is outside the job's "
                + worldSize / ranksPerPod
                + " pods");
      }
      String job = required(env, EnvVars.JOB);
      return new PodSettings(
          job,
          // Absent when pods are started by hand on hosts outside a cluster.
          env.getOrDefault(EnvVars.NAMESPACE, ""),
          podIndex,
          ranksPerPod,
          worldSize,
          RendezvousAddress.parse(env.get(EnvVars.RENDEZVOUS), EnvVars.RENDEZVOUS),
          runOf(env, job),
          Path.of(env.getOrDefault(EnvVars.JOB_FILE, RankSettings.POD_JOB_FILE.toString())),
          // hosts without a cluster: where pod 0's rank 0 writes the report
          Optional.ofNullable(env.get(EnvVars.REPORT_DIR))
              .filter(dir -> !dir.isBlank())
              .map(Path::of));
    }

    /**
     * The operator's run id; pods started by hand without one keep other jobs' ranks out by the
     * job's name (a name that is no run id keeps nothing out).
     */
    private static RunId runOf(Map<String, String> env, String job) {
      RunId given = RunId.parse(env.get(EnvVars.RUN_ID), EnvVars.RUN_ID);
      if (!given.equals(RunId.NONE)) {
        return given;
      }
      return RunId.isValid(job) ? new RunId(job) : RunId.NONE;
    }

    private static String required(Map<String, String> env, String name) {
      String value = env.get(name);
      if (value == null || value.isBlank()) {
        throw new UsageException(name + ": required (set by the gpucomm operator)");
      }
      return value;
    }

    private static int atLeast(Map<String, String> env, String name, int minimum) {
      String text = required(env, name);
      try {
        int value = AsciiIntegers.parseInt(text.trim());
        if (value < minimum) {
          throw new UsageException(name + ": " + value + " is below the minimum " + minimum);
        }
        return value;
      } catch (NumberFormatException e) {
        throw new UsageException(name + ": '" + text + "' is not an integer");
      }
    }
  }

  private final JavaCommand java;
  private final Map<String, String> rankEnvironment;
  private final OutputStream output;

  public PodLaunch(JavaCommand java, Map<String, String> rankEnvironment, OutputStream output) {
    this.java = java;
    this.rankEnvironment = Map.copyOf(rankEnvironment);
    this.output = output;
  }

  public SupervisionResult run(PodSettings pod, ProgressStyle progress) {
    // a switch every rank would refuse is refused once, here, as a local run does
    RankSettings.requireKnownSwitches(rankEnvironment);
    LoadedJob loaded = new JobLoader().load(pod.jobFile());
    CommJobSpec spec = loaded.job().getSpec();
    // and so is a setting of the job's backend, which its ranks would refuse only on their devices
    new DeviceBackends().requireValidSettings(spec.getDevice(), rankEnvironment);
    if (spec.getWorldSize() != pod.worldSize() || spec.getRanksPerPod() != pod.ranksPerPod()) {
      throw new UsageException(
          pod.jobFile()
              + ": spec.worldSize "
              + spec.getWorldSize()
              + " / spec.ranksPerPod "
              + spec.getRanksPerPod()
              + " differ from the pod's "
              + EnvVars.WORLD_SIZE
              + " "
              + pod.worldSize()
              + " / "
              + EnvVars.RANKS_PER_POD
              + " "
              + pod.ranksPerPod());
    }
    // a pod's ranks share its host: a job whose buffers cannot fit there is refused before they
    // start, as in a local run, rather than by the out-of-memory killer
    MemoryCheck.requireRoomForRanks(
        pod.jobFile().toString(),
        loaded.job(),
        Objects.requireNonNullElse(spec.getDevice(), CommJobDefaults.DEVICE),
        pod.ranksPerPod());
    // Pod 0's rank 0 writes the report: into a staged directory, renamed into place only when
    // every rank of the pod succeeded, as a local run does. A target that is not (only) a report
    // is refused before any rank starts.
    Optional<Path> reportDir = pod.podIndex() == 0 ? pod.reportDir() : Optional.empty();
    reportDir.ifPresent(
        dir ->
            StagedReportDirectory.refusal(dir)
                .ifPresent(
                    why -> {
                      throw new UsageException(EnvVars.REPORT_DIR + ": " + dir + " " + why);
                    }));
    Optional<StagedReportDirectory> staged = reportDir.map(StagedReportDirectory::create);
    try {
      SupervisionResult result = superviseRanks(pod, spec, staged, progress);
      if (result instanceof SupervisionResult.Succeeded) {
        staged.ifPresent(StagedReportDirectory::commit);
        staged = Optional.empty();
      }
      return result;
    } finally {
      staged.ifPresent(StagedReportDirectory::discard);
    }
  }

  private SupervisionResult superviseRanks(
      PodSettings pod,
      CommJobSpec spec,
      Optional<StagedReportDirectory> staged,
      ProgressStyle progress) {
    List<RankSettings> ranks = new ArrayList<>();
    for (int localRank = 0; localRank < pod.ranksPerPod(); localRank++) {
      ranks.add(
          new RankSettings(
              pod.jobFile(),
              pod.jobFile().toString(),
              pod.podIndex() * pod.ranksPerPod() + localRank,
              localRank,
              pod.worldSize(),
              pod.ranksPerPod(),
              localRank,
              Optional.empty(),
              pod.rendezvous(),
              pod.run(),
              staged.map(StagedReportDirectory::staging),
              Optional.empty(),
              RankMode.JOB,
              progress,
              false,
              true));
    }
    RankSupervisor supervisor = new RankSupervisor(java, rankEnvironment, output);
    Duration limit = Duration.ofSeconds(spec.getTimeoutSeconds());
    if (pod.podIndex() != 0) {
      return supervisor.supervise(ranks, limit);
    }
    // the pod network reaches the store: it serves this job's world only
    try (TcpStoreServer store =
        TcpStoreServer.startForRun(null, pod.rendezvous().port(), pod.worldSize(), pod.run())) {
      SupervisionResult result = supervisor.supervise(ranks, limit);
      if (result instanceof SupervisionResult.Succeeded) {
        store.awaitAllRanksGone(STORE_LINGER);
      }
      return result;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot host the rendezvous store on port "
              + pod.rendezvous().port()
              + ": "
              + e.getMessage(),
          e);
    }
  }
}
