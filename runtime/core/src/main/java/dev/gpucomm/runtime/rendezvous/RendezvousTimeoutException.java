package dev.gpucomm.runtime.rendezvous;

/** A rendezvous wait that ran out of time; the message names the key and the missing ranks. */
public class RendezvousTimeoutException extends RendezvousException {
  public RendezvousTimeoutException(String message) {
    super(message);
  }
}
