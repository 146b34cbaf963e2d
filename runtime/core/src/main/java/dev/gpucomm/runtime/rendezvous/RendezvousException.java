package dev.gpucomm.runtime.rendezvous;

/** The rendezvous failed: the store cannot be reached, or a rank left the job. */
public class RendezvousException extends RuntimeException {
  public RendezvousException(String message) {
    super(message);
  }

  public RendezvousException(String message, Throwable cause) {
    super(message, cause);
  }
}
