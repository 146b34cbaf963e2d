package dev.gpucomm.runtime.collective.cpu;

/**
 * Where the 32-bit flags live in a rank's signal area: one set of {@code worldSize} flags per
 * purpose, flag [set][peer] written only by {@code peer} and polled only by the area's owner, each
 * in its own 64-byte line so that peers writing their flags do not contend for one cache line.
 *
 * <p>The staging area follows the signal area at a page boundary.
 */
record SignalLayout(int worldSize) {
  static final int START_BARRIER = 0;
  static final int MIDDLE_BARRIER = 1;
  static final int END_BARRIER = 2;

  /** Messages the peer has published into its channel to the owner. */
  static final int CHANNEL_HEAD = 3;

  /** Messages of the owner's channel to the peer that the peer has consumed. */
  static final int CHANNEL_TAIL = 4;

  /** Written once at creation to prove that peer memory works. */
  static final int PROBE = 5;

  /** Set by a peer whose collective failed: waiting for it any longer is pointless. */
  static final int ABORT = 6;

  private static final int SETS = 7;
  private static final long FLAG_STRIDE = 64;
  private static final long PAGE = 4096;

  SignalLayout {
    if (worldSize < 1) {
      throw new IllegalArgumentException("world size must be >= 1, got " + worldSize);
    }
  }

  /** Byte offset of flag [set][peer] in a signal area. */
  long offset(int set, int peer) {
    return ((long) set * worldSize + peer) * FLAG_STRIDE;
  }

  long signalBytes() {
    long bytes = SETS * worldSize * FLAG_STRIDE;
    return (bytes + PAGE - 1) / PAGE * PAGE;
  }
}
