package dev.gpucomm.runtime;

/**
 * A mistake in what the user asked for (a bad flag, job file or setting): reported as one line,
 * exit code 2, no stack trace.
 */
public class UsageException extends RuntimeException {
  public UsageException(String message) {
    super(message);
  }

  public UsageException(String message, Throwable cause) {
    super(message, cause);
  }
}
