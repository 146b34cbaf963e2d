package dev.gpucomm.runtime.collective;

/**
 * Where a rank sits: its global rank among {@code worldSize}, and its local rank among the {@code
 * localWorldSize} ranks of its node (pod), which share one IPC namespace.
 */
public record RankTopology(int rank, int worldSize, int localRank, int localWorldSize) {
  public RankTopology {
    if (worldSize < 1 || rank < 0 || rank >= worldSize) {
      throw new IllegalArgumentException("rank " + rank + " outside world of " + worldSize);
    }
    if (localWorldSize < 1
        || localRank < 0
        || localRank >= localWorldSize
        || worldSize % localWorldSize != 0) {
      throw new IllegalArgumentException(
          "local rank " + localRank + " of " + localWorldSize + " does not fit world " + worldSize);
    }
  }

  /** Index of this rank's node (pod). */
  public int nodeIndex() {
    return rank / localWorldSize;
  }

  public int nodeCount() {
    return worldSize / localWorldSize;
  }

  /** True when all ranks share one node, so peer-memory (IPC) algorithms can span the world. */
  public boolean singleNode() {
    return localWorldSize == worldSize;
  }

  /** Global rank of the node's local rank 0. */
  public int firstRankOfNode() {
    return nodeIndex() * localWorldSize;
  }
}
