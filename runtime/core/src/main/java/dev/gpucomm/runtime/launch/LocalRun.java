package dev.gpucomm.runtime.launch;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.launch.RankSettings.ProgressStyle;
import dev.gpucomm.runtime.launch.RankSettings.RankMode;
import dev.gpucomm.runtime.rendezvous.RendezvousAddress;
import dev.gpucomm.runtime.rendezvous.RunId;
import dev.gpucomm.runtime.rendezvous.TcpStoreServer;
import dev.gpucomm.runtime.report.HumanUnits;
import dev.gpucomm.runtime.spec.JobJson;
import dev.gpucomm.runtime.spec.LoadedJob;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Plays the operator's part on one host: all of a job's ranks run here as child JVMs, pod by pod as
 * in a cluster (rank r has LOCAL_RANK r mod ranksPerPod, so peer-memory algorithms span a pod, not
 * the host) but each opening device r of the host. This process hosts the rendezvous store,
 * supervises the ranks and moves rank 0's report into place when all succeeded.
 */
public final class LocalRun {
  /**
   * @param device the resolved device backend (written into the job the ranks read)
   * @param reportDir where the report goes; empty for runs that produce none (selftest)
   */
  public record Request(
      LoadedJob job,
      DeviceKind device,
      Optional<Path> reportDir,
      RankMode mode,
      boolean dumpIr,
      ProgressStyle progress) {}

  /** How the run ended, and where its report is when it succeeded. */
  public record Result(SupervisionResult supervision, Optional<Path> report) {}

  private final JavaCommand java;
  private final Map<String, String> rankEnvironment;
  private final OutputStream output;

  /**
   * @param rankEnvironment extra variables for every rank (e.g. GPUCOMM_DEBUG)
   * @param output where the ranks' standard output (rank 0's results table) goes
   */
  public LocalRun(JavaCommand java, Map<String, String> rankEnvironment, OutputStream output) {
    this.java = java;
    this.rankEnvironment = Map.copyOf(rankEnvironment);
    this.output = output;
  }

  public Result run(Request request) {
    CommJob job = request.job().job();
    job.getSpec().setDevice(request.device());
    int worldSize = job.getSpec().getWorldSize();
    int ranksPerPod = job.getSpec().getRanksPerPod();
    requireCpuRoom(request, worldSize);
    MemoryCheck.requireRoomForRanks(
        request.job().source(), request.job().job(), request.device(), worldSize);
    // The report's staging first: a target that cannot be made leaves no work directory behind.
    Optional<StagedReportDirectory> staged = request.reportDir().map(StagedReportDirectory::create);
    Path workDir;
    try {
      workDir = createWorkDir();
    } catch (RuntimeException e) {
      staged.ifPresent(StagedReportDirectory::discard);
      throw e;
    }
    boolean succeeded = false;
    RunId run = RunId.random();
    try (TcpStoreServer store =
        TcpStoreServer.startForRun(InetAddress.getLoopbackAddress(), 0, worldSize, run)) {
      Path jobFile = Files.writeString(workDir.resolve("job.json"), JobJson.write(job));
      RendezvousAddress rendezvous = new RendezvousAddress("127.0.0.1", store.port());
      List<RankSettings> ranks = new ArrayList<>();
      for (int rank = 0; rank < worldSize; rank++) {
        ranks.add(
            new RankSettings(
                jobFile,
                request.job().source(),
                rank,
                rank % ranksPerPod,
                worldSize,
                ranksPerPod,
                rank,
                Optional.of(request.device()),
                rendezvous,
                run,
                staged.map(StagedReportDirectory::staging),
                Optional.empty(),
                request.mode(),
                request.progress(),
                request.dumpIr(),
                true));
      }
      Path work = workDir;
      SupervisionResult result =
          new RankSupervisor(java, rankEnvironment, output)
              .supervise(
                  ranks,
                  Duration.ofSeconds(job.getSpec().getTimeoutSeconds()),
                  () -> {
                    // Ctrl-C or SIGTERM: the finally below never runs
                    staged.ifPresent(StagedReportDirectory::discard);
                    deleteWorkDir(work);
                    System.err.println(
                        System.lineSeparator()
                            + "gpucomm: interrupted; the ranks were stopped and no report was"
                            + " written");
                  });
      if (result instanceof SupervisionResult.Succeeded) {
        staged.ifPresent(StagedReportDirectory::commit);
        succeeded = true;
        return new Result(result, staged.map(StagedReportDirectory::target));
      }
      return new Result(result, Optional.empty());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the local run: " + e.getMessage(), e);
    } finally {
      if (!succeeded) {
        staged.ifPresent(StagedReportDirectory::discard);
      }
      deleteWorkDir(workDir);
    }
  }

  /**
   * Ranks of the CPU backend a local run may put on each of the host's CPUs. A rank spins while it
   * waits for its peers, so a few per CPU already measure the scheduler more than the collective,
   * and a world of dozens on a laptop would stall it long before memory runs out.
   */
  static final int CPU_RANKS_PER_CPU = 4;

  /** However few the CPUs, this many CPU ranks may run: the examples' and tests' worlds. */
  static final int MIN_CPU_RANKS = 8;

  private static void requireCpuRoom(Request request, int ranksOnHost) {
    if (request.device() != DeviceKind.CPU) {
      return;
    }
    int cpus = Runtime.getRuntime().availableProcessors();
    int most = Math.max(MIN_CPU_RANKS, CPU_RANKS_PER_CPU * cpus);
    if (ranksOnHost > most) {
      throw new UsageException(
          "%s: %s: %d ranks of the cpu device would share this host's %s; a local run takes at most %d (%d a CPU, at least %d)"
              .formatted(
                  request.job().source(),
                  request.job().field("spec.worldSize"),
                  ranksOnHost,
                  HumanUnits.count(cpus, "CPU"),
                  most,
                  CPU_RANKS_PER_CPU,
                  MIN_CPU_RANKS));
    }
  }

  private static final String WORK_DIR_PREFIX = "gpucomm-run-";

  private static Path createWorkDir() {
    try {
      Path temporary = Path.of(System.getProperty("java.io.tmpdir"));
      OwnedTemporaryDirectory.removeAbandoned(temporary, WORK_DIR_PREFIX);
      return OwnedTemporaryDirectory.create(temporary, WORK_DIR_PREFIX);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory: " + e.getMessage(), e);
    }
  }

  private static void deleteWorkDir(Path dir) {
    try (var files = Files.list(dir)) {
      for (Path file : files.toList()) {
        Files.deleteIfExists(file);
      }
      Files.deleteIfExists(dir);
    } catch (IOException ignored) {
      // Leftovers in the temp directory are harmless.
    }
  }
}
