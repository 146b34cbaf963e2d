package dev.gpucomm.runtime.device.cuda;

import java.util.function.Supplier;

/**
 * A native binding loaded on first use, once per process, by a loader that returns it or throws an
 * {@link IllegalStateException} saying why it cannot be loaded. A failure is remembered too, so a
 * host without the library is probed once and every later call gets the same one-line reason.
 */
public final class LoadedOnce<T> {
  private final Supplier<T> loader;
  private volatile Object state;

  private record Failure(String reason) {}

  public LoadedOnce(Supplier<T> loader) {
    this.loader = loader;
  }

  /**
   * The binding.
   *
   * @throws IllegalStateException with the loader's reason when it could not be loaded
   */
  public T get() {
    Object current = state;
    if (current == null) {
      synchronized (this) {
        current = state;
        if (current == null) {
          try {
            current = loader.get();
          } catch (IllegalStateException e) {
            current = new Failure(e.getMessage());
          }
          state = current;
        }
      }
    }
    if (current instanceof Failure failure) {
      throw new IllegalStateException(failure.reason());
    }
    @SuppressWarnings("unchecked")
    T binding = (T) current;
    return binding;
  }
}
