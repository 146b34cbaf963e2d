package dev.gpucomm.runtime.collective.cpu;

import java.lang.foreign.MemorySegment;

/**
 * Point-to-point message channels between this rank and any peer, addressed by global rank: the
 * transport of the ring algorithms and of send/receive. Inside a pod they are shared-memory slots,
 * between pods TCP connections; the algorithms see only this interface, so one ring can mix both.
 *
 * <p>A sender fills the slot that {@link #acquireSendSlot} returns and hands it over with {@link
 * #publish}; a receiver reads the slot that {@link #awaitMessage} returns and gives it back with
 * {@link #release}. Each channel holds a few messages in flight, so that a ring in which every rank
 * sends before it receives makes progress. An operation {@link #drain}s what it sent before it
 * returns. No call allocates: slots are prepared once, when the channels are built.
 */
sealed interface MessageChannels permits PeerChannels, TcpPeerLinks, PodRoutedChannels {
  /** The largest message in bytes. */
  int slotBytes();

  /** Waits for a free slot of the channel to {@code to}; returns it, {@link #slotBytes()} long. */
  MemorySegment acquireSendSlot(int to, String operation);

  /** Sends the first {@code bytes} bytes of the slot {@link #acquireSendSlot} returned. */
  void publish(int to, long bytes, String operation);

  /** Waits for the next message from {@code from}; returns its slot. */
  MemorySegment awaitMessage(int from, String operation);

  /** Gives the slot of the message just read back to {@code from}. */
  void release(int from);

  /** Waits until everything sent to {@code to} has left this rank's slots. */
  void drain(int to, String operation);
}
