package dev.gpucomm.runtime.hostir.programs;

/** A program spec that cannot run; the message is one line naming the field. */
public final class ProgramSpecException extends IllegalArgumentException {
  public ProgramSpecException(String message) {
    super(message);
  }
}
