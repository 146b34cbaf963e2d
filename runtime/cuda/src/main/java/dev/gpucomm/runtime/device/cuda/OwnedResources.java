package dev.gpucomm.runtime.device.cuda;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The native resources one owner created and has not closed yet; closing the owner closes them in
 * reverse order of creation and keeps going when one fails.
 */
final class OwnedResources {
  private static final Logger LOG = Logger.getLogger(OwnedResources.class.getName());

  private final Deque<AutoCloseable> open = new ArrayDeque<>();

  synchronized <T extends AutoCloseable> T add(T resource) {
    open.push(resource);
    return resource;
  }

  /** Called by a resource that was closed on its own, so that the owner forgets it. */
  synchronized void remove(AutoCloseable resource) {
    open.removeFirstOccurrence(resource);
  }

  /** Closes everything still open, newest first; failures are logged and the rest still closed. */
  void closeAll(String owner) {
    List<AutoCloseable> toClose;
    synchronized (this) {
      toClose = new ArrayList<>(open);
      open.clear();
    }
    for (AutoCloseable resource : toClose) {
      try {
        resource.close();
      } catch (Exception e) {
        LOG.log(Level.WARNING, owner + ": closing " + resource + " failed: " + e.getMessage(), e);
      }
    }
  }
}
