package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.runtime.UsageException;

/**
 * A program spec that cannot run; the message is one line naming the field. A usage error (exit 2),
 * found by the launcher before any rank starts.
 */
public final class ProgramSpecException extends UsageException {
  public ProgramSpecException(String message) {
    super(message);
  }
}
