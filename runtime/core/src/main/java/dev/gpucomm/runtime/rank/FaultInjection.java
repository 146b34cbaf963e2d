package dev.gpucomm.runtime.rank;

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
      throw new dev.gpucomm.runtime.UsageException(
          EnvVars.TEST_FAIL_RANK + ": '" + value + "' is not a rank number");
    }
  }

  public void afterRendezvous(int rank) {
    if (failingRank.isPresent() && failingRank.getAsInt() == rank) {
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
