package dev.gpucomm.runtime.files;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.security.SecureRandom;

/**
 * Replaces a file whole or not at all: the new content goes to a hidden temporary file beside it,
 * which is then renamed over it (atomically where the file system allows). A reader sees the old
 * file or the new one, never half of one; a failed write leaves the old file and no temporary.
 */
public final class ReplacingFile {
  private ReplacingFile() {}

  /**
   * Writes {@code text} (UTF-8) as the whole of {@code requested} (of the file it links to, if a
   * link), creating its folder if missing. A failure of the temporary file is said of the file: the
   * temporary's name is not the user's.
   */
  public static void writeString(Path requested, String text) throws IOException {
    Path file = replaceable(requested);
    Path folder = file.toAbsolutePath().getParent();
    if (Files.exists(folder) && !Files.isDirectory(folder)) {
      throw new NotDirectoryException(folder.toString()); // as a shell says it, not "exists"
    }
    Files.createDirectories(folder);
    String name = file.getFileName().toString();
    try {
      Path temporary = temporaryBeside(folder, name);
      try {
        Files.writeString(temporary, text, StandardCharsets.UTF_8);
        keepModeOf(file, temporary);
        moveIntoPlace(temporary, file);
      } finally {
        Files.deleteIfExists(temporary);
      }
    } catch (IOException e) {
      throw saidOfFile(e, file);
    }
  }

  /**
   * Tries now what {@link #writeString} of {@code requested} will need after a long piece of work:
   * a file it may replace, and a folder that takes a new file there (a temporary file is made and
   * removed: permission bits do not tell, for root or on /proc).
   */
  public static void tryReplacing(Path requested) throws IOException {
    Path file = replaceable(requested);
    Path folder = file.toAbsolutePath().getParent();
    if (!Files.exists(folder)) {
      throw new NoSuchFileException(folder.toString());
    }
    if (!Files.isDirectory(folder)) {
      throw new NotDirectoryException(folder.toString());
    }
    String name = file.getFileName().toString();
    try {
      Files.delete(temporaryBeside(folder, name));
    } catch (IOException e) {
      throw saidOfFile(e, file);
    }
  }

  /** {@code e}, said of {@code file} where it concerns the temporary file beside it. */
  private static IOException saidOfFile(IOException e, Path file) {
    if (!FileProblem.concernsFileNamed(e, temporaryPrefix(file.getFileName().toString()))) {
      return e;
    }
    IOException ofFile = new FileSystemException(file.toString(), null, FileProblem.of(e));
    ofFile.initCause(e);
    return ofFile;
  }

  /** The file a write of {@code requested} replaces: the one a link names; refused if not one. */
  private static Path replaceable(Path requested) throws IOException {
    // Through a link to the file it names (renaming over the link would replace the link), and
    // never over a device, pipe or socket: renaming over /dev/null would replace the device.
    Path file = Files.isSymbolicLink(requested) ? requested.toRealPath() : requested;
    if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
      // said now, by tryReplacing too, rather than by the rename at the end of the work
      throw new FileSystemException(requested.toString(), null, "is a folder");
    }
    if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)
        && !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      throw new FileSystemException(requested.toString(), null, "not a regular file");
    }
    if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && !Files.isWritable(file)) {
      // renaming over it would succeed in a writable folder: a read-only file says "keep me"
      throw new AccessDeniedException(requested.toString(), null, "read-only");
    }
    return file;
  }

  /**
   * An empty hidden file in {@code folder} that will become {@code name}, created as any new file
   * is (its mode from the umask): a temporary file of the JDK's starts owner-only, and would stay
   * so after the rename.
   */
  public static Path temporaryBeside(Path folder, String name) throws IOException {
    for (int attempt = 1; ; attempt++) {
      Path temporary =
          folder.resolve(
              temporaryPrefix(name) + Long.toUnsignedString(RANDOM.nextLong(), 36) + ".tmp");
      try {
        return Files.createFile(temporary);
      } catch (FileAlreadyExistsException e) {
        if (attempt == 100) {
          throw e;
        }
      }
    }
  }

  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * Gives {@code replacement} the permissions of the file it replaces: a file its owner made
   * private stays private.
   */
  private static void keepModeOf(Path file, Path replacement) throws IOException {
    if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
        && Files.getFileStore(replacement)
            .supportsFileAttributeView(PosixFileAttributeView.class)) {
      Files.setPosixFilePermissions(
          replacement, Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS));
    }
  }

  private static String temporaryPrefix(String name) {
    return "." + name + ".";
  }

  /** Renames {@code temporary} over {@code target}, atomically where the file system can. */
  public static void moveIntoPlace(Path temporary, Path target) throws IOException {
    try {
      Files.move(
          temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
