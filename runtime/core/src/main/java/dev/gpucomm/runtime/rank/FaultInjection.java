package dev.gpucomm.runtime.rank;

import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.launch.EnvVars;
import java.util.Map;
import java.util.OptionalInt;

/**
 * A test hook: with GPUCOMM_TEST_FAIL_RANK=n, rank n fails right after the rendezvous, so that
 * tests can check end to end that a failing rank stops the job and is named. Never set in
 * production; a run with it set says so in the error.
 */
public record FaultInjection(OptionalInt failingRank) {
  public static FaultInjection fromEnv(Map<String, String> env) {
    String value = env.get(EnvVars.TEST_FAIL_RANK);
    if (value == null || value.isBlank()) {
      return new FaultInjection(OptionalInt.empty());
    }
    try {
      return new FaultInjection(OptionalInt.of(Integer.parseInt(value.trim())));
    } catch (NumberFormatException e) {
      throw new UsageException(EnvVars.TEST_FAIL_RANK + ": '" + value + "' is not a rank number");
    }
  }

  /**
   * Fails rank {@code rank} if it is the one named. A rank the world does not have fails every rank
   * instead: a test that meant to see a failure must not see a run that passed.
   */
  public void afterRendezvous(int rank, int worldSize) {
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
          "injected failure (" + EnvVars.TEST_FAIL_RANK + "=" + rank + ")");
    }
  }

  /** The failure the hook raises. */
  public static final class InjectedFaultException extends RuntimeException {
    public InjectedFaultException(String message) {
      super(message);
    }
  }
}
