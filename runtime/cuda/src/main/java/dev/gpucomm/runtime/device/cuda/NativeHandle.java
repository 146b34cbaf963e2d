package dev.gpucomm.runtime.device.cuda;

import java.util.concurrent.atomic.AtomicBoolean;

/** The open/closed state of one native handle: close once, and no use after close. */
final class NativeHandle {
  private final String what;
  private final AtomicBoolean closed = new AtomicBoolean();

  NativeHandle(String what) {
    this.what = what;
  }

  /** Throws {@link IllegalStateException} when the handle has been closed. */
  void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException(what + " is closed");
    }
  }

  /** True exactly once: for the first caller, who must then release the handle. */
  boolean markClosed() {
    return closed.compareAndSet(false, true);
  }

  boolean isClosed() {
    return closed.get();
  }

  @Override
  public String toString() {
    return what;
  }
}
