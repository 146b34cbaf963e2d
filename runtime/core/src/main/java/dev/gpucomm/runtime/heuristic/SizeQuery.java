package dev.gpucomm.runtime.heuristic;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.ComputeCapability;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Everything a heuristic may look at: the call (collective, bytes per rank, tokens and hidden size
 * when known, dtype), the world (ranks, ranks per node) and the hardware (compute capability, which
 * algorithms the communicator can run).
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
    Set<Algorithm> available) {}
