package dev.gpucomm.runtime.fabric;

/** NCCL chose a transport the job's {@code spec.network.expect} does not allow. */
public final class UnexpectedTransportException extends RuntimeException {
  public UnexpectedTransportException(String message) {
    super(message);
  }
}
