package dev.gpucomm.runtime.cli;

import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.device.cpu.CpuBindMode;
import dev.gpucomm.runtime.kube.KubeClients;
import dev.gpucomm.runtime.kube.RetryPolicy;
import dev.gpucomm.runtime.launch.EnvVars;
import dev.gpucomm.runtime.launch.RankCompletion;
import dev.gpucomm.runtime.launch.RankError;
import dev.gpucomm.runtime.launch.RankErrorFile;
import dev.gpucomm.runtime.launch.RankSettings;
import dev.gpucomm.runtime.rank.FaultInjection;
import dev.gpucomm.runtime.rank.RankMain;
import dev.gpucomm.runtime.rank.Site;
import dev.gpucomm.runtime.spec.AsciiIntegers;
import io.fabric8.kubernetes.client.Config;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/**
 * {@code gpucomm rank}: one rank, configured like torchrun's workers by RANK, LOCAL_RANK,
 * WORLD_SIZE, GPUCOMM_RENDEZVOUS and GPUCOMM_JOB_FILE. Started by {@code launch} and {@code run};
 * can be started by hand on several hosts too.
 */
@Command(
    name = "rank",
    description =
        "run one rank (reads RANK, LOCAL_RANK, WORLD_SIZE, GPUCOMM_RENDEZVOUS, GPUCOMM_JOB_FILE)",
    descriptionHeading = "%n",
    optionListHeading = "%nOptions:%n")
final class RankCommand implements Callable<Integer> {
  private final CliContext context;

  RankCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    Optional<Path> errorFile = RankSettings.errorFileOf(context.env());
    try {
      errorFile.ifPresent(RankCompletion::markStarted);
    } catch (UncheckedIOException e) {
      // its launcher's folder is gone or read-only: nowhere to report but here
      context.err().println("gpucomm rank: " + e.getMessage());
      return 1;
    }
    RankSettings settings;
    try {
      settings = RankSettings.fromEnv(context.env());
    } catch (RuntimeException e) {
      if (errorFile.isEmpty()) {
        throw e; // said on standard error like any command's
      }
      // a supervised rank says it to its launcher, which names the rank
      RankError error = Gpucomm.classify(e);
      if (!error.writeTo(errorFile.get())) {
        context.err().println("gpucomm rank: " + error.message());
      }
      return error.exitCode();
    }
    if (settings.supervised()) {
      // A rank whose launcher is gone has nobody to report to: leave instead of running on.
      ProcessHandle.current()
          .parent()
          .ifPresent(parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(1)));
    }
    FailureNotice notice =
        new FailureNotice(settings.errorFile().map(RankErrorFile::new), context, settings.rank());
    try {
      // inside the try: a site that cannot be set up (no service-account CA, say) is this rank's
      // error, reported through its error file like any other
      RankMain rank =
          new RankMain(
              site(settings, context),
              FaultInjection.fromEnv(context.env()),
              CpuBindMode.fromEnv(context.env()),
              context.out(),
              context.err(),
              notice::peerFailed,
              notice::ownFailure);
      rank.run(settings);
      settings.errorFile().ifPresent(RankCompletion::markFinished);
      return 0;
    } catch (RuntimeException | Error e) {
      // An allocation the memory checks could not foresee (a communicator's own buffers, say), a
      // stack overflow or a missing native library is this rank's failure in one line, like any
      // other: without its error file the launcher could say only an exit code.
      RankError error = notice.ownFailure(e);
      if (context.debug()) {
        e.printStackTrace(context.err());
      }
      return error.exitCode();
    }
  }

  /**
   * Where this rank's failure is said: in its error file, for its launcher to name the rank; on
   * standard error where it has none, or where the file cannot be written (a named pipe, a device),
   * so that the failure is never said nowhere, and there only once.
   */
  static final class FailureNotice {
    private final Optional<RankErrorFile> errors;
    private final CliContext context;
    private final int rank;
    private boolean saidOnStandardError;

    FailureNotice(Optional<RankErrorFile> errors, CliContext context, int rank) {
      this.errors = errors;
      this.context = context;
      this.rank = rank;
    }

    /**
     * This rank's failure, said as soon as it happens (tearing the device down afterwards may take
     * long, or never end) and again as the rank ends, where the file takes the last word.
     */
    synchronized RankError ownFailure(Throwable failure) {
      RankError error = Gpucomm.classify(failure);
      if (!errors.map(file -> file.recordOwnFailure(error)).orElse(false)) {
        sayOnce(error.message());
      }
      return error;
    }

    /**
     * Another rank died while this one may be stuck in device work that waits for it: say why and
     * leave at once (the supervisor stops the rest). A peer's failure noticed after this rank's own
     * (its leaving as this one tears down) does not take the place of this rank's.
     */
    synchronized void peerFailed(String message) {
      RankError error = new RankError(RankError.Kind.PEER, message);
      if (!errors.map(file -> file.recordPeerFailure(error)).orElse(false)) {
        sayOnce(message);
      }
      context.err().flush();
      Runtime.getRuntime().halt(1);
    }

    private void sayOnce(String message) {
      if (!saidOnStandardError) {
        context.err().println("gpucomm rank " + rank + ": " + message);
        saidOnStandardError = true;
      }
    }
  }

  private static Site site(RankSettings settings, CliContext context) {
    if (settings.reportDir().isPresent()) {
      return new Site.Directory(settings.reportDir().get());
    }
    String namespace = context.env().get(EnvVars.NAMESPACE);
    String job = context.env().get(EnvVars.JOB);
    Optional<Config> api = KubeClients.forRank(context.env(), RetryPolicy.RESULTS);
    if (api.isPresent() && namespace != null && job != null) {
      return new Site.Cluster(
          KubeClients.create(api.get()), namespace, job, restartAttempt(context.env()));
    }
    return new Site.Terminal();
  }

  /** The run this pod belongs to, as the operator set it; empty where it set none. */
  static OptionalInt restartAttempt(Map<String, String> env) {
    String text = env.get(EnvVars.RESTART_ATTEMPT);
    if (text == null || text.isEmpty()) {
      return OptionalInt.empty();
    }
    int attempt;
    try {
      attempt = AsciiIntegers.parseInt(text);
    } catch (NumberFormatException e) {
      attempt = -1;
    }
    if (attempt < 0) {
      throw new UsageException(
          EnvVars.RESTART_ATTEMPT + ": " + text + " is not a restart attempt (0, 1, 2 ...)");
    }
    return OptionalInt.of(attempt);
  }
}
