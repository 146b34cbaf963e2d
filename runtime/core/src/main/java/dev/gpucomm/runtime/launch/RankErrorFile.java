package dev.gpucomm.runtime.launch;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A supervised rank's error file, as the rank fills it. Two threads may end a rank at once: its own
 * work failing, and the watch that hears of a peer's failure (both ranks refusing the same job,
 * say, one a moment before the other). The file then holds one error whole, and the rank's own
 * failure, once recorded, is not replaced by the news of a peer's. The news of a peer's, recorded
 * first, is replaced by the rank's own only where the rank lives to record it: a rank that hears of
 * a peer's failure leaves at once, and its supervisor then names the peer, whose own error the
 * peer's file holds.
 */
public final class RankErrorFile {
  private final Path file;
  private boolean ownFailureRecorded;

  public RankErrorFile(Path file) {
    this.file = Objects.requireNonNull(file, "file");
  }

  /**
   * Records this rank's own failure in place of anything recorded before; false where the file
   * could not be written, so that the caller says the error elsewhere.
   */
  public synchronized boolean recordOwnFailure(RankError error) {
    boolean written = error.writeTo(file);
    ownFailureRecorded |= written;
    return written;
  }

  /**
   * Records {@code error}, which says that another rank's failure ended this one, unless this rank
   * has recorded its own: that one is the launcher's to report. False where neither error is in the
   * file, so that the caller says it elsewhere.
   */
  public synchronized boolean recordPeerFailure(RankError error) {
    return ownFailureRecorded || error.writeTo(file);
  }
}
