package dev.gpucomm.runtime.kube;

import io.fabric8.kubernetes.client.Config;
import java.time.Duration;

/**
 * How often a request that got 429, a 5xx or no answer at all is tried again, and the first wait
 * (doubled before each further try). Fabric8 does the retrying; other answers (403, 404) are final
 * at once.
 */
public record RetryPolicy(int retries, Duration firstWait) {
  /**
   * For the results ConfigMap, which is how a finished job's measurements leave the pod: an API
   * server briefly unreachable or overloaded must not lose hours of work. Six tries, with waits of
   * 0.5, 1, 2, 4 and 8 s between them.
   */
  public static final RetryPolicy RESULTS = new RetryPolicy(5, Duration.ofMillis(500));

  public RetryPolicy {
    if (retries < 0 || firstWait.isNegative()) {
      throw new IllegalArgumentException("retries and firstWait must not be negative");
    }
  }

  /** {@code config} with this policy (Fabric8 caps the doubling at 32 times the first wait). */
  public Config applyTo(Config config) {
    config.setRequestRetryBackoffLimit(retries);
    config.setRequestRetryBackoffInterval(Math.toIntExact(firstWait.toMillis()));
    return config;
  }
}
