package dev.gpucomm.runtime.launch;

import dev.gpucomm.api.v1alpha1.validation.EchoedValue;
import dev.gpucomm.runtime.files.BoundedFile;
import dev.gpucomm.runtime.files.ReplacingFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A rank's one-line error, as it hands it to its supervisor through a file (like torchelastic's
 * error files): what kind of failure it was and the message.
 */
public record RankError(Kind kind, String message) {
  /** Why the rank failed; a supervisor names the first rank whose failure is not a consequence. */
  public enum Kind {
    /** Bad input (job file, settings): exit code 2. */
    USAGE,
    /** The rank's own failure: a wrong result, a device error, an injected fault. */
    FAILURE,
    /** Another rank died first, and this rank noticed (through the store). */
    PEER
  }

  public RankError {
    message = oneLine(message);
  }

  /** Exit code a rank (and its launcher) uses for this kind of error. */
  public int exitCode() {
    return kind == Kind.USAGE ? 2 : 1;
  }

  /**
   * Writes the error to {@code file} whole ({@link ReplacingFile}): its reader never sees a
   * half-written error, nor the tail of a longer one written before. False where the file could not
   * be written (the path a named pipe or a device, a folder that takes no new file): the caller
   * then says the error on standard error, so that it is not lost.
   */
  public boolean writeTo(Path file) {
    try {
      ReplacingFile.writeString(file, kind.name() + "\t" + message + "\n");
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** The most of a rank's error file read: the message is one line, shown in a terminal. */
  private static final int MAX_ERROR_FILE_BYTES = 64 << 10;

  /** The error a rank left in {@code file}, if it left one. */
  public static Optional<RankError> readFrom(Path file) {
    try {
      String text = BoundedFile.readText(file, MAX_ERROR_FILE_BYTES).strip();
      int tab = text.indexOf('\t');
      if (tab < 0) {
        return Optional.empty();
      }
      return Optional.of(
          new RankError(Kind.valueOf(text.substring(0, tab)), text.substring(tab + 1)));
    } catch (IOException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Collapses a message to one line: errors are read in terminals and termination messages. */
  public static String oneLine(String message) {
    if (message == null || message.isBlank()) {
      return "unknown error";
    }
    // a message may echo what a user or a library wrote: no escape sequence reaches the terminal
    return EchoedValue.onOneLine(message, " | ", MAX_LINE_CHARACTERS);
  }

  /** The longest line said about a failure; longer ones end in a note of their length. */
  private static final int MAX_LINE_CHARACTERS = 2000;
}
