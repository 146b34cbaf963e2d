package dev.gpucomm.runtime.device;

import java.util.List;

/** Closing several native resources at once, the way every owner of them does it. */
public final class Closing {
  private Closing() {}

  /**
   * Closes {@code resources} from the last to the first (the reverse of the order they were made
   * in, so that nothing outlives what it was made from) and keeps going when one fails. Returns the
   * first failure, with the later ones suppressed in it, or null when every resource closed. An
   * {@link Error} (the heap or a native library giving out) does not stop the others closing
   * either; it is thrown once they have, the other failures suppressed in it.
   */
  public static RuntimeException newestFirst(List<? extends AutoCloseable> resources) {
    RuntimeException failure = null;
    Error error = null;
    for (AutoCloseable resource : resources.reversed()) {
      try {
        resource.close();
      } catch (Error e) {
        if (error == null) {
          error = e;
        } else {
          error.addSuppressed(e);
        }
      } catch (Exception e) {
        RuntimeException wrapped =
            e instanceof RuntimeException runtime
                ? runtime
                : new IllegalStateException(
                    "closing " + resource + " failed: " + e.getMessage(), e);
        if (failure == null) {
          failure = wrapped;
        } else {
          failure.addSuppressed(wrapped);
        }
      }
    }
    if (error != null) {
      if (failure != null) {
        error.addSuppressed(failure);
      }
      throw error;
    }
    return failure;
  }
}
