package dev.gpucomm.runtime.device.cuda;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import jcuda.driver.JCudaDriver;

/**
 * Loads JCuda's driver library once per process, safely when many rank processes start at once.
 *
 * <p>JCuda extracts its native library from the jar to a fixed name in {@code java.io.tmpdir};
 * ranks starting together overwrite the file while others map it, and a rank dies with SIGBUS
 * inside the dynamic loader (seen with four ranks on one host). Here each process extracts into a
 * directory of its own, which is deleted again once the library is loaded (the mapping stays
 * valid). Where the library is on {@code java.library.path}, JCuda loads it from there and nothing
 * is extracted.
 */
final class JCudaNatives {
  private static boolean loaded;

  private JCudaNatives() {}

  static synchronized void load() {
    if (loaded) {
      return;
    }
    String sharedTemp = System.getProperty("java.io.tmpdir");
    Path privateTemp;
    try {
      privateTemp = Files.createTempDirectory("gpucomm-jcuda-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for JCuda's native library", e);
    }
    System.setProperty("java.io.tmpdir", privateTemp.toString());
    try {
      // The first use of JCudaDriver runs its static initializer, which loads the library.
      JCudaDriver.setExceptionsEnabled(false);
      loaded = true;
    } finally {
      System.setProperty("java.io.tmpdir", sharedTemp);
      deleteQuietly(privateTemp);
    }
  }

  private static void deleteQuietly(Path directory) {
    try (Stream<Path> files = Files.walk(directory)) {
      files
          .sorted((a, b) -> b.getNameCount() - a.getNameCount())
          .forEach(
              path -> {
                try {
                  Files.deleteIfExists(path);
                } catch (IOException e) {
                  // A leftover temporary file is harmless.
                }
              });
    } catch (IOException e) {
      // Same.
    }
  }
}
