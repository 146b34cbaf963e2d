package dev.gpucomm.runtime.cli;

import dev.gpucomm.runtime.files.FileProblem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;

/**
 * The cause of a failure in words: what our own exceptions and the JDK's expected ones say, without
 * their class names; only a failure that is a defect of gpucomm itself (a null pointer, a bad cast)
 * keeps its type, since that is what its maintainers need first.
 */
final class FailureCause {
  private FailureCause() {}

  static String of(Throwable failure) {
    String message = failure.getMessage();
    boolean hasMessage = message != null && !message.isBlank();
    if (failure instanceof UncheckedIOException unchecked && !hasMessage) {
      return of(unchecked.getCause());
    }
    if (failure instanceof FileSystemException file) {
      String where = file.getFile() == null ? "" : file.getFile() + ": ";
      return where + FileProblem.of(file);
    }
    if (failure instanceof IOException io) {
      return FileProblem.of(io);
    }
    if (failure instanceof OutOfMemoryError) {
      return "out of Java heap memory" + (hasMessage ? " (" + message + ")" : "");
    }
    boolean expected =
        failure.getClass().getName().startsWith("dev.gpucomm.")
            || failure instanceof UncheckedIOException
            || failure instanceof IllegalArgumentException
            || failure instanceof IllegalStateException
            || failure instanceof UnsupportedOperationException;
    if (expected && hasMessage) {
      return message;
    }
    String type = failure.getClass().getSimpleName();
    return hasMessage ? type + ": " + message : type;
  }
}
