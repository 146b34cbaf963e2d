package dev.gpucomm.runtime.files;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Reads a user-named file as UTF-8 text, refusing anything that is not a regular file or is larger
 * than the caller's limit: {@code /dev/zero} would otherwise fill the heap and a named pipe with no
 * writer would block forever.
 */
public final class BoundedFile {
  private BoundedFile() {}

  /**
   * The text of {@code file}, at most {@code maxBytes} long.
   *
   * @throws UnreadableFileException saying why in words (no such file, a directory, a named pipe,
   *     too large, not UTF-8 text, permission denied)
   */
  public static String readText(Path file, int maxBytes) throws UnreadableFileException {
    return utf8Text(readBytes(file, maxBytes));
  }

  /** The bytes of {@code file}, at most {@code maxBytes}; as {@link #readText}. */
  public static byte[] readBytes(Path file, int maxBytes) throws UnreadableFileException {
    check(file, maxBytes);
    try (InputStream in = Files.newInputStream(file)) {
      // the size may have grown since it was read, so the read is bounded too
      byte[] bytes = in.readNBytes(maxBytes + 1);
      if (bytes.length > maxBytes) {
        throw tooLarge(maxBytes);
      }
      return bytes;
    } catch (IOException e) {
      throw new UnreadableFileException(FileProblem.of(e));
    }
  }

  /**
   * Checks that {@code file} is a regular file of at most {@code maxBytes}, without opening it: for
   * a file that a library reads on its own (a kubeconfig), which would read a device or a huge file
   * to its end and wait forever on a named pipe.
   *
   * @throws UnreadableFileException saying why in words, as {@link #readText}
   */
  public static void check(Path file, long maxBytes) throws UnreadableFileException {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(file, BasicFileAttributes.class);
    } catch (IOException e) {
      throw new UnreadableFileException(FileProblem.of(e));
    }
    if (attributes.isDirectory()) {
      throw new UnreadableFileException("is a directory");
    }
    if (!attributes.isRegularFile()) {
      // opening a named pipe blocks until a writer comes, and a device may never end
      throw new UnreadableFileException(
          "not a regular file (" + FileKind.of(file).description() + ")");
    }
    if (attributes.size() > maxBytes) {
      throw tooLarge(maxBytes);
    }
  }

  private static UnreadableFileException tooLarge(long maxBytes) {
    return new UnreadableFileException("larger than " + FileProblem.bytes(maxBytes), true);
  }

  /**
   * {@code bytes} as UTF-8 text, refusing malformed input rather than replacing it: for a caller
   * that tells a file it could not read from one whose content is wrong.
   */
  public static String utf8Text(byte[] bytes) throws UnreadableFileException {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new UnreadableFileException("not UTF-8 text");
    }
  }
}
