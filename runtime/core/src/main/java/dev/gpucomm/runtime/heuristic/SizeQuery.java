package dev.gpucomm.runtime.heuristic;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.ComputeCapability;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Everything a heuristic may look at: the call (collective, bytes per rank, tokens and hidden size
 * when known, dtype), the world (ranks, ranks per node) and the hardware (compute capability, which
 * algorithms the communicator can run, and the largest message its IPC algorithms carry in one pass
 * through their peer buffers), and for a job across pods how its pods reach each other.
 *
 * @param ipcWorkspaceBytes the peer buffers' capacity: gpucomm's one-shot and two-shot run a larger
 *     message in passes, while the published rules (TensorRT-LLM's, vLLM's) use their IPC kernels
 *     only for messages that fit their workspace
 * @param podLink how the ranks of different pods reach each other: over a peer path of one host, a
 *     flat algorithm already sees every GPU and hierarchical all-reduce only adds steps
 */
public record SizeQuery(
    Collective collective,
    long bytes,
    OptionalInt tokens,
    int hiddenSize,
    DType dtype,
    int worldSize,
    int ranksPerNode,
    Optional<ComputeCapability> computeCapability,
    Set<Algorithm> available,
    long ipcWorkspaceBytes,
    PodLink podLink) {

  public SizeQuery {
    Objects.requireNonNull(podLink, "podLink");
    // in the algorithms' declared order: a Set.copyOf iterates in an order drawn per JVM, and
    // every rank must come to the same choice
    EnumSet<Algorithm> ordered = EnumSet.noneOf(Algorithm.class);
    ordered.addAll(available);
    available = Collections.unmodifiableSet(ordered);
  }

  /** A query on a communicator that did not say how its pods are linked. */
  public SizeQuery(
      Collective collective,
      long bytes,
      OptionalInt tokens,
      int hiddenSize,
      DType dtype,
      int worldSize,
      int ranksPerNode,
      Optional<ComputeCapability> computeCapability,
      Set<Algorithm> available,
      long ipcWorkspaceBytes) {
    this(
        collective,
        bytes,
        tokens,
        hiddenSize,
        dtype,
        worldSize,
        ranksPerNode,
        computeCapability,
        available,
        ipcWorkspaceBytes,
        PodLink.NOT_OBSERVED);
  }

  /**
   * A query on a communicator whose peer buffers hold any message in one pass and that did not say
   * how its pods are linked.
   */
  public SizeQuery(
      Collective collective,
      long bytes,
      OptionalInt tokens,
      int hiddenSize,
      DType dtype,
      int worldSize,
      int ranksPerNode,
      Optional<ComputeCapability> computeCapability,
      Set<Algorithm> available) {
    this(
        collective,
        bytes,
        tokens,
        hiddenSize,
        dtype,
        worldSize,
        ranksPerNode,
        computeCapability,
        available,
        Long.MAX_VALUE);
  }
}
