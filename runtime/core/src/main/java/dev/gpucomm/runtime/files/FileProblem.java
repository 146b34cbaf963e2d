package dev.gpucomm.runtime.files;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** The cause of a failed file operation in words, never a Java exception's class name. */
public final class FileProblem {
  private FileProblem() {}

  /** "no such file", "permission denied", "not UTF-8 text", or the system's own reason. */
  public static String of(IOException e) {
    if (e instanceof UnreadableFileException) {
      return e.getMessage();
    }
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof NotDirectoryException) {
      return "not a directory";
    }
    if (e instanceof CharacterCodingException) {
      return "not UTF-8 text";
    }
    if (e instanceof FileSystemException fileSystem && fileSystem.getReason() != null) {
      return fileSystem.getReason();
    }
    String message = e.getMessage();
    return message == null || message.isBlank() ? "an input/output error" : message;
  }

  /** {@code bytes} as the largest whole unit that divides it: "1 MiB", "64 KiB", "100 bytes". */
  static String bytes(long bytes) {
    if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
      return (bytes >> 20) + " MiB";
    }
    if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
      return (bytes >> 10) + " KiB";
    }
    return bytes + " bytes";
  }
}
