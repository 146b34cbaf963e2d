package dev.gpucomm.runtime.collective;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.fabric.CommunicatorFabric;
import dev.gpucomm.runtime.fabric.FabricObservation;
import dev.gpucomm.runtime.heuristic.PodLink;
import java.util.List;
import java.util.Set;

/**
 * The collectives of one rank over its world, each run with a named algorithm in stream order.
 *
 * <p>Buffers are the caller's device buffers; algorithms that need peer memory copy through the
 * communicator's registered buffers (or, inside a graph capture, may use them directly). Every call
 * is asynchronous on {@code stream} and allocates nothing: buffers, kernel parameters and signal
 * areas are set up once when the communicator is built. {@link Algorithm#AUTO} is not accepted
 * here; the heuristic resolves it first.
 *
 * <p>Counts are in elements of {@code dtype}. For all-gather, reduce-scatter and collective permute
 * the count is per rank: all-gather reads {@code count} elements and writes {@code count *
 * worldSize}; reduce-scatter reads {@code count * worldSize} and writes {@code count}.
 */
public interface Communicator extends AutoCloseable {
  RankTopology topology();

  /**
   * The all-reduce algorithms this communicator can run (IPC algorithms need working peer memory).
   */
  Set<Algorithm> allReduceAlgorithms();

  /**
   * The algorithms the given collective's method accepts here. By default: {@link
   * #allReduceAlgorithms()} for all-reduce and NCCL for the others; collective permute takes no
   * algorithm, so its set is empty.
   */
  default Set<Algorithm> algorithms(Collective collective) {
    return switch (collective) {
      case ALLREDUCE -> allReduceAlgorithms();
      case ALLGATHER, REDUCESCATTER, BROADCAST -> Set.of(Algorithm.NCCL);
      case COLLECTIVEPERMUTE -> Set.of();
    };
  }

  /**
   * The transports the communicator's library connected this rank with (NCCL's choice per peer), or
   * why they are unknown.
   */
  default FabricObservation fabric() {
    return FabricObservation.unknown("this backend's transports are its own (no NCCL)");
  }

  /**
   * The transports of each of the communicator's underlying communicators: by default only the one
   * over every rank ({@link #fabric()}).
   */
  default List<CommunicatorFabric> fabrics() {
    return List.of(new CommunicatorFabric(CommunicatorFabric.WORLD, fabric()));
  }

  /**
   * How the ranks of different pods reach each other, the same on every rank, for the heuristic
   * choosing between flat and hierarchical all-reduce; by default not known.
   */
  default PodLink podLink() {
    return PodLink.unknown("this backend does not say how its pods are linked");
  }

  /** Why some algorithms are missing from {@link #allReduceAlgorithms()}; empty when none are. */
  String unavailableReason();

  /**
   * The largest all-reduce in bytes that the peer-memory algorithms run in one pass through their
   * buffers; larger ones run in several passes.
   */
  long maxPeerMemoryBytes();

  /**
   * The largest call of {@code collective} in bytes per rank that its peer-memory algorithms
   * accept; by default {@link #maxPeerMemoryBytes()}, for backends whose other collectives stage
   * through the same buffers.
   */
  default long maxPeerMemoryBytes(Collective collective) {
    return maxPeerMemoryBytes();
  }

  void allReduce(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream);

  void allGather(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream);

  void reduceScatter(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream);

  void broadcast(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      int root,
      Stream stream);

  /**
   * One step of a collective permute: sends {@code send} to rank {@code sendTo} and receives {@code
   * receive} from rank {@code receiveFrom}, as one grouped send/recv pair.
   */
  void sendReceive(
      DeviceBuffer send,
      int sendTo,
      DeviceBuffer receive,
      int receiveFrom,
      long bytes,
      Stream stream);

  /**
   * A collective permute of {@code count} elements per rank over the whole world: the output holds
   * every rank's chunk in rank order; at step i this rank receives chunk (i + rank) mod d and sends
   * its own chunk to rank (d + rank − i) mod d; step 0 is a local copy.
   */
  void collectivePermute(
      DeviceBuffer input, DeviceBuffer output, long count, DType dtype, Stream stream);

  /**
   * Releases what {@link #close()} releases, after a failure: without waiting for the peers or for
   * the operations still in flight, which a failed run may never finish (NCCL's abort, not its
   * destroy, as NCCL asks after an error). A later {@link #close()} does nothing. By default {@link
   * #close()}, for a backend with nothing to wait for.
   */
  default void closeAfterFailure() {
    close();
  }

  /** Releases the communicator; a second call does nothing. */
  @Override
  void close();
}
