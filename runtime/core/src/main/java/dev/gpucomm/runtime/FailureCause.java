package dev.gpucomm.runtime;

import dev.gpucomm.runtime.files.FileProblem;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The cause of a failure in words: what our own exceptions and the JDK's expected ones say, without
 * their class names; only a failure that is a defect of gpucomm itself (a null pointer, a bad cast)
 * keeps its type, since that is what its maintainers need first.
 */
public final class FailureCause {
  private FailureCause() {}

  public static String of(Throwable failure) {
    String message = failure.getMessage();
    boolean hasMessage = message != null && !message.isBlank();
    // new UncheckedIOException(cause) takes the cause's toString, class name and all, as message
    if (failure instanceof UncheckedIOException unchecked
        && (!hasMessage || message.equals(unchecked.getCause().toString()))) {
      return of(unchecked.getCause());
    }
    if (failure instanceof IOException io) {
      return FileProblem.located(io);
    }
    if (failure instanceof OutOfMemoryError) {
      return "out of Java heap memory" + (hasMessage ? " (" + message + ")" : "");
    }
    if (failure instanceof ExceptionInInitializerError && failure.getCause() != null) {
      return of(failure.getCause());
    }
    // A build or host problem rather than a defect: a native library or a class is missing.
    if (failure instanceof UnsatisfiedLinkError) {
      return "a native library could not be loaded" + (hasMessage ? " (" + message + ")" : "");
    }
    if (failure instanceof NoClassDefFoundError) {
      return "a class is missing from this build"
          + (hasMessage ? " (" + message.replace('/', '.') + ")" : "");
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
