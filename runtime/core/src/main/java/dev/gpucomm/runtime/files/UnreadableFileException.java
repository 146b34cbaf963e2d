package dev.gpucomm.runtime.files;

import java.io.IOException;

/** A file that cannot be read as asked; the message says why in words, without the file's name. */
public final class UnreadableFileException extends IOException {
  private final boolean tooLarge;

  UnreadableFileException(String reason) {
    this(reason, false);
  }

  UnreadableFileException(String reason, boolean tooLarge) {
    super(reason);
    this.tooLarge = tooLarge;
  }

  /** Whether the file is larger than the reader's limit (so the caller may say what fits). */
  public boolean tooLarge() {
    return tooLarge;
  }
}
