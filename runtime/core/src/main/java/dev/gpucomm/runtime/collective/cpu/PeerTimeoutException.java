package dev.gpucomm.runtime.collective.cpu;

/** A rank waited longer than the configured timeout for a peer in a collective. */
public final class PeerTimeoutException extends RuntimeException {
  PeerTimeoutException(String message) {
    super(message);
  }
}
