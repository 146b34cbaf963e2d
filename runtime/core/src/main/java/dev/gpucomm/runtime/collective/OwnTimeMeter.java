package dev.gpucomm.runtime.collective;

/**
 * A communicator that measures how long its collectives ran on this rank outside their waits for
 * peers. Every rank of a collective takes as long as the slowest one, so the time per call cannot
 * tell the ranks apart; the time outside the waits can: a rank slowed by a cause of its own (a CPU
 * quota, a core it shares) keeps its peers waiting and itself waits little.
 */
public interface OwnTimeMeter {
  /** Nanoseconds this rank's collectives have run outside waits for peers since it was built. */
  long ownNanos();
}
