package dev.gpucomm.runtime.rendezvous;

/**
 * Another rank left the job without saying goodbye (its process died), so a wait can never
 * complete. A consequence of that rank's failure, not a failure of its own: supervisors report the
 * rank that died first.
 */
public final class PeerFailedException extends RendezvousException {
  public PeerFailedException(String message) {
    super(message);
  }
}
