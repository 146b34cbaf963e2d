package dev.gpucomm.runtime.device;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The resources one owner created and that are still open; closing it closes them in reverse order
 * of creation, keeps going when one fails and then throws the first failure with the others
 * suppressed. A resource closed on its own leaves the set, so long-running owners do not accumulate
 * them.
 */
public final class OwnedResources implements AutoCloseable {
  private final LinkedHashSet<AutoCloseable> open = new LinkedHashSet<>();

  /** Takes {@code resource} into this owner's care; returns it. */
  public synchronized <T extends AutoCloseable> T add(T resource) {
    open.add(resource);
    return resource;
  }

  /** Called for a resource that was closed on its own, so that the owner forgets it. */
  public synchronized void remove(AutoCloseable resource) {
    open.remove(resource);
  }

  /**
   * Closes everything still open, newest first, and keeps going when one fails.
   *
   * @throws RuntimeException the first failure, with the later ones suppressed in it
   */
  @Override
  public void close() {
    List<AutoCloseable> oldestFirst;
    synchronized (this) {
      oldestFirst = new ArrayList<>(open);
      open.clear();
    }
    RuntimeException failure = Closing.newestFirst(oldestFirst);
    if (failure != null) {
      throw failure;
    }
  }
}
