package dev.gpucomm.runtime.rank;

import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.launch.EnvVars;
import dev.gpucomm.runtime.spec.AsciiIntegers;
import java.util.Map;
import java.util.OptionalInt;

/**
 * A test hook: with GPUCOMM_TEST_FAIL_RANK=n, rank n fails right after the rendezvous, or with
 * GPUCOMM_TEST_FAIL_AT=workload once its device and communicator are up, just as its peers start
 * the workload and wait on it (on GPUs, in kernels spinning on its flags), so that tests can check
 * end to end that a failing rank stops the job and is named. Never set in production; a run with it
 * set says so in the error.
 */
public record FaultInjection(OptionalInt failingRank, Stage stage) {
  /** Where the named rank fails. */
  public enum Stage {
    RENDEZVOUS,
    WORKLOAD
  }

  public static FaultInjection fromEnv(Map<String, String> env) {
    String at = env.getOrDefault(EnvVars.TEST_FAIL_AT, "").strip();
    Stage stage =
        switch (at) {
          case "", "rendezvous" -> Stage.RENDEZVOUS;
          case "workload" -> Stage.WORKLOAD;
          default ->
              throw new UsageException(
                  EnvVars.TEST_FAIL_AT
                      + ": unknown value '"
                      + at
                      + "' (expected rendezvous, workload)");
        };
    String value = env.get(EnvVars.TEST_FAIL_RANK);
    if (value == null || value.isBlank()) {
      return new FaultInjection(OptionalInt.empty(), stage);
    }
    try {
      return new FaultInjection(OptionalInt.of(AsciiIntegers.parseInt(value.trim())), stage);
    } catch (NumberFormatException e) {
      throw new UsageException(EnvVars.TEST_FAIL_RANK + ": '" + value + "' is not a rank number");
    }
  }

  /** Fails the named rank if it fails after the rendezvous; see {@link #failIfNamed}. */
  public void afterRendezvous(int rank, int worldSize) {
    if (stage == Stage.RENDEZVOUS) {
      failIfNamed(rank, worldSize);
    }
  }

  /** Fails the named rank if it fails before the workload; see {@link #failIfNamed}. */
  public void beforeWorkload(int rank, int worldSize) {
    if (stage == Stage.WORKLOAD) {
      failIfNamed(rank, worldSize);
    }
  }

  /**
   * Fails rank {@code rank} if it is the one named. A rank the world does not have fails every rank
   * instead: a test that meant to see a failure must not see a run that passed.
   */
  private void failIfNamed(int rank, int worldSize) {
    if (failingRank.isEmpty()) {
      return;
    }
    int failing = failingRank.getAsInt();
    if (failing < 0 || failing >= worldSize) {
      throw new InjectedFaultException(
          EnvVars.TEST_FAIL_RANK
              + "="
              + failing
              + " names no rank of this world of "
              + worldSize
              + " (0.."
              + (worldSize - 1)
              + ")");
    }
    if (failing == rank) {
      throw new InjectedFaultException(
          "injected failure ("
              + EnvVars.TEST_FAIL_RANK
              + "="
              + rank
              + (stage == Stage.WORKLOAD ? " " + EnvVars.TEST_FAIL_AT + "=workload" : "")
              + ")");
    }
  }

  /** The failure the hook raises. */
  public static final class InjectedFaultException extends RuntimeException {
    public InjectedFaultException(String message) {
      super(message);
    }
  }
}
