package dev.gpucomm.runtime.collective.cpu;

/** A collective stopped waiting because another rank's (or another) collective had failed. */
public final class PeerFailedException extends RuntimeException {
  PeerFailedException(String message) {
    super(message);
  }
}
