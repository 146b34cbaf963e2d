package dev.gpucomm.runtime.fabric;

import java.util.Objects;

/**
 * What one rank saw of the fabric of one of its communicators: {@value #WORLD} for the one over
 * every rank, {@value #ACROSS_PODS} for the one of the ranks sharing a local rank across pods that
 * hierarchical all-reduce crosses pods on.
 */
public record CommunicatorFabric(String communicator, FabricObservation observation) {
  /** The communicator of every rank of the job. */
  public static final String WORLD = "world";

  /** The communicator of the ranks with the same local rank, one per pod. */
  public static final String ACROSS_PODS = "across-pods";

  public CommunicatorFabric {
    Objects.requireNonNull(communicator, "communicator");
    Objects.requireNonNull(observation, "observation");
  }
}
