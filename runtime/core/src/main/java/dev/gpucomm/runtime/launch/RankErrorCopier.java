package dev.gpucomm.runtime.launch;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Copies a rank's standard error to the launcher's as it comes, leaving out the one notice that the
 * JVM prints for the incubating Vector API module the ranks are started with: the user asked for a
 * benchmark, and the same warning once per rank says nothing about it.
 *
 * <p>The JVM prints the notice before any of the rank's own output, so only the first bytes are
 * held, and only while they still spell the notice; from the first byte that differs (or once the
 * notice is dropped) every read is passed on at once, so a progress line that redraws itself with a
 * carriage return reaches the terminal as it is drawn.
 */
final class RankErrorCopier {
  /** What {@code java --add-modules=jdk.incubator.vector} prints first on standard error. */
  static final byte[] INCUBATOR_NOTICE =
      "WARNING: Using incubator modules: jdk.incubator.vector\n".getBytes(StandardCharsets.UTF_8);

  private RankErrorCopier() {}

  /** Copies {@code in} to {@code out} until {@code in} ends or fails (the rank is gone). */
  static void copy(InputStream in, OutputStream out) {
    byte[] buffer = new byte[8192];
    int held = 0; // bytes at the start of the stream that match the notice so far
    boolean deciding = true;
    try (in) {
      int read;
      while ((read = in.read(buffer)) >= 0) {
        int from = 0;
        if (deciding) {
          int matched = 0;
          while (matched < read
              && held + matched < INCUBATOR_NOTICE.length
              && buffer[matched] == INCUBATOR_NOTICE[held + matched]) {
            matched++;
          }
          if (held + matched == INCUBATOR_NOTICE.length) {
            deciding = false; // the notice, whole: dropped
            from = matched;
          } else if (matched == read) {
            held += matched; // still the notice so far: wait for more
            continue;
          } else {
            deciding = false; // something else: what was held is the rank's own output
            pass(out, INCUBATOR_NOTICE, 0, held);
          }
        }
        pass(out, buffer, from, read - from);
      }
    } catch (IOException e) {
      // The rank is gone; what it printed so far has been passed on.
    }
    if (deciding) {
      pass(out, INCUBATOR_NOTICE, 0, held); // the stream ended inside what looked like the notice
    }
  }

  private static void pass(OutputStream out, byte[] bytes, int from, int length) {
    if (length == 0) {
      return;
    }
    synchronized (out) {
      try {
        out.write(bytes, from, length);
        out.flush();
      } catch (IOException e) {
        // The launcher's own standard error is gone: nothing to tell anyone.
      }
    }
  }
}
