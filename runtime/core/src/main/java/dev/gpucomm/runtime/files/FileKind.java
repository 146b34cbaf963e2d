package dev.gpucomm.runtime.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What a path that is neither a regular file nor a directory is, as a user would name it. */
enum FileKind {
  NAMED_PIPE("a named pipe"),
  SOCKET("a socket"),
  CHARACTER_DEVICE("a character device"),
  BLOCK_DEVICE("a block device"),
  OTHER("a special file");

  private final String description;

  FileKind(String description) {
    this.description = description;
  }

  String description() {
    return description;
  }

  /** The kind of {@code file}, from the POSIX mode bits where the file system has them. */
  static FileKind of(Path file) {
    try {
      Object mode = Files.getAttribute(file, "unix:mode");
      if (mode instanceof Integer bits) {
        return switch (bits & 0xf000) {
          case 0x1000 -> NAMED_PIPE;
          case 0xc000 -> SOCKET;
          case 0x2000 -> CHARACTER_DEVICE;
          case 0x6000 -> BLOCK_DEVICE;
          default -> OTHER;
        };
      }
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      // no unix view: the generic name is still true
    }
    return OTHER;
  }
}
