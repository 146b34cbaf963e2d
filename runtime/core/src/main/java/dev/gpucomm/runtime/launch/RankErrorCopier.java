package dev.gpucomm.runtime.launch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Copies a rank's standard error to the launcher's, line by line, leaving out the one notice that
 * the JVM prints for the incubating Vector API module the ranks are started with: the user asked
 * for a benchmark, and the same warning once per rank says nothing about it. Everything else passes
 * unchanged; a line longer than {@link #LONGEST_HELD} bytes is passed on in parts rather than held.
 */
final class RankErrorCopier {
  /** What {@code java --add-modules=jdk.incubator.vector} prints first on standard error. */
  static final byte[] INCUBATOR_NOTICE =
      "WARNING: Using incubator modules: jdk.incubator.vector\n".getBytes(StandardCharsets.UTF_8);

  static final int LONGEST_HELD = 64 * 1024;

  private RankErrorCopier() {}

  /** Copies {@code in} to {@code out} until {@code in} ends or fails (the rank is gone). */
  static void copy(InputStream in, OutputStream out) {
    byte[] buffer = new byte[8192];
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    try (in) {
      int read;
      while ((read = in.read(buffer)) >= 0) {
        for (int i = 0; i < read; i++) {
          line.write(buffer[i]);
          if (buffer[i] == '\n' || line.size() >= LONGEST_HELD) {
            pass(line, out);
          }
        }
      }
    } catch (IOException e) {
      // The rank is gone; what it printed so far is passed on below.
    }
    pass(line, out);
  }

  private static void pass(ByteArrayOutputStream line, OutputStream out) {
    byte[] bytes = line.toByteArray();
    line.reset();
    if (bytes.length == 0 || Arrays.equals(bytes, INCUBATOR_NOTICE)) {
      return;
    }
    synchronized (out) {
      try {
        out.write(bytes);
        out.flush();
      } catch (IOException e) {
        // The launcher's own standard error is gone: nothing to tell anyone.
      }
    }
  }
}
