package dev.gpucomm.runtime.device.cpu;

import dev.gpucomm.runtime.device.Closing;
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
    List<AutoCloseable> oldestFirst;
    synchronized (this) {
      oldestFirst = new ArrayList<>(open);
      open.clear();
    }
    return Closing.newestFirst(oldestFirst);
  }
}
