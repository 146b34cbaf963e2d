package dev.gpucomm.runtime.heuristic;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.ComputeCapability;
import java.util.EnumSet;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/** Builds the size queries the heuristic tests ask, one job on one node by default. */
final class Queries {
  static final Set<Algorithm> CUDA_ALGORITHMS =
      EnumSet.of(Algorithm.NCCL, Algorithm.ONESHOT, Algorithm.TWOSHOT);
  static final Set<Algorithm> CPU_ALGORITHMS =
      EnumSet.of(Algorithm.ONESHOT, Algorithm.TWOSHOT, Algorithm.RING);

  private Queries() {}

  /** An all-reduce of {@code tokens × hidden} elements of {@code dtype} on one node. */
  static SizeQuery tokens(int tokens, int hidden, DType dtype, int world) {
    return new SizeQuery(
        Collective.ALLREDUCE,
        (long) tokens * hidden * dtype.bytes(),
        OptionalInt.of(tokens),
        hidden,
        dtype,
        world,
        world,
        Optional.empty(),
        CUDA_ALGORITHMS);
  }

  /** An all-reduce of {@code bytes} per rank (no token count), bf16, hidden 8192, on one node. */
  static SizeQuery bytes(long bytes, int world) {
    return bytes(bytes, world, Optional.empty());
  }

  static SizeQuery bytes(long bytes, int world, Optional<ComputeCapability> cc) {
    return new SizeQuery(
        Collective.ALLREDUCE,
        bytes,
        OptionalInt.empty(),
        8192,
        DType.BF16,
        world,
        world,
        cc,
        CUDA_ALGORITHMS);
  }

  /** {@code query} on a communicator whose IPC peer buffers hold {@code bytes} per pass. */
  static SizeQuery withIpcWorkspace(SizeQuery query, long bytes) {
    return new SizeQuery(
        query.collective(),
        query.bytes(),
        query.tokens(),
        query.hiddenSize(),
        query.dtype(),
        query.worldSize(),
        query.ranksPerNode(),
        query.computeCapability(),
        query.available(),
        bytes);
  }

  static SizeQuery withAvailable(SizeQuery query, Set<Algorithm> available) {
    return new SizeQuery(
        query.collective(),
        query.bytes(),
        query.tokens(),
        query.hiddenSize(),
        query.dtype(),
        query.worldSize(),
        query.ranksPerNode(),
        query.computeCapability(),
        available);
  }

  static SizeQuery withRanksPerNode(SizeQuery query, int ranksPerNode) {
    return new SizeQuery(
        query.collective(),
        query.bytes(),
        query.tokens(),
        query.hiddenSize(),
        query.dtype(),
        query.worldSize(),
        ranksPerNode,
        query.computeCapability(),
        query.available());
  }

  static SizeQuery withCollective(SizeQuery query, Collective collective) {
    return new SizeQuery(
        collective,
        query.bytes(),
        query.tokens(),
        query.hiddenSize(),
        query.dtype(),
        query.worldSize(),
        query.ranksPerNode(),
        query.computeCapability(),
        query.available());
  }

  /** {@code query} on a communicator that saw its pods reach each other over {@code link}. */
  static SizeQuery withPodLink(SizeQuery query, PodLink link) {
    return new SizeQuery(
        query.collective(),
        query.bytes(),
        query.tokens(),
        query.hiddenSize(),
        query.dtype(),
        query.worldSize(),
        query.ranksPerNode(),
        query.computeCapability(),
        query.available(),
        query.ipcWorkspaceBytes(),
        link);
  }

  static Optional<ComputeCapability> cc(String text) {
    return Optional.of(ComputeCapability.parse(text));
  }
}
