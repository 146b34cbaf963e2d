package dev.gpucomm.runtime.files;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;

/** The cause of a failed file operation in words, never a Java exception's class name. */
public final class FileProblem {
  private FileProblem() {}

  /**
   * "no such file", "permission denied", "not UTF-8 text", or the system's own reason; never only a
   * path, which is all the message of the JDK's file exceptions holds.
   */
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
    if (e instanceof FileAlreadyExistsException) {
      return "already exists";
    }
    if (e instanceof DirectoryNotEmptyException) {
      return "directory not empty";
    }
    if (e instanceof FileSystemLoopException) {
      return "a loop of symbolic links";
    }
    if (e instanceof CharacterCodingException) {
      return "not UTF-8 text";
    }
    if (e instanceof FileSystemException fileSystem) {
      return fileSystem.getReason() != null ? fileSystem.getReason() : "an input/output error";
    }
    String message = e.getMessage();
    return message == null || message.isBlank() ? "an input/output error" : message;
  }

  /**
   * {@link #of(IOException)} after the file the system named, or both files of a move: "a.json:
   * permission denied", "a -> b: Operation not permitted".
   */
  public static String located(IOException e) {
    if (e instanceof FileSystemException fileSystem && fileSystem.getFile() != null) {
      String files =
          fileSystem.getOtherFile() == null
              ? fileSystem.getFile()
              : fileSystem.getFile() + " -> " + fileSystem.getOtherFile();
      return files + ": " + of(e);
    }
    return of(e);
  }

  /**
   * Whether the file the system named in {@code e} has a name starting with {@code prefix}: a
   * hidden temporary of gpucomm's beside the user's file, which a message should not name.
   */
  public static boolean concernsFileNamed(IOException e, String prefix) {
    if (!(e instanceof FileSystemException fileSystem) || fileSystem.getFile() == null) {
      return false;
    }
    try {
      Path name = Path.of(fileSystem.getFile()).getFileName();
      return name != null && name.toString().startsWith(prefix);
    } catch (InvalidPathException unparsable) {
      return false;
    }
  }

  /**
   * The cause of a failed operation on {@code subject}, for a sentence that names it already:
   * {@link #of(IOException)} when the system named {@code subject} alone, else {@link
   * #located(IOException)} (a file inside it, a sibling, a move).
   */
  public static String of(Path subject, IOException e) {
    if (e instanceof FileSystemException fileSystem
        && fileSystem.getOtherFile() == null
        && fileSystem.getFile() != null
        && sameFile(subject, fileSystem.getFile())) {
      return of(e);
    }
    return located(e);
  }

  private static boolean sameFile(Path subject, String file) {
    try {
      return subject
          .toAbsolutePath()
          .normalize()
          .equals(Path.of(file).toAbsolutePath().normalize());
    } catch (InvalidPathException e) {
      return false;
    }
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
