package dev.gpucomm.runtime.device.cpu;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The resources an owner created and that are still open, closed in reverse order of creation; a
 * resource closed on its own leaves the set, so long-running owners do not accumulate them.
 */
final class OwnedResources {
  private final LinkedHashSet<AutoCloseable> open = new LinkedHashSet<>();

  synchronized <T extends AutoCloseable> T add(T resource) {
    open.add(resource);
    return resource;
  }

  synchronized void remove(AutoCloseable resource) {
    open.remove(resource);
  }

  /**
   * Closes everything still open, newest first, and keeps going when one fails; the first failure
   * is returned with the others suppressed, or null when all closed cleanly.
   */
  RuntimeException closeAll() {
    List<AutoCloseable> newestFirst;
    synchronized (this) {
      newestFirst = new ArrayList<>(open).reversed();
      open.clear();
    }
    RuntimeException failure = null;
    for (AutoCloseable resource : newestFirst) {
      try {
        resource.close();
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
    return failure;
  }
}
