package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.device.cuda.CudaDriverApi;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * The copies of the host path on one rank of a node (see {@code HostWords} in allreduce.cu): around
 * each {@code *_wsh} kernel, an outbound stream stages this rank's host bytes in pinned host memory
 * chunk by chunk and tells each peer, and an inbound stream copies what each peer staged for this
 * rank into this GPU and, once a chunk has come from every peer, tells the kernel. Both streams
 * fork from and join the caller's stream, and every word they write holds a constant, so a call
 * captured in a CUDA graph replays. The words live in the ranks' peer memory beside the kernel's
 * ready words: each stream waits on its own GPU's memory and writes its peers' over the peer
 * mapping (words in host memory were no faster:
 * bench/results/2026-11-22-2xH200-host-path-runtime/).
 *
 * <p>Owns its two streams, three events and the host staging.
 */
final class HostPath implements AutoCloseable {
  /** Which bytes of a call's host share go to which peer, and where they land. */
  enum Route {
    /**
     * {@code oneshot_wsh} on two ranks: the whole share goes to the peer, staged once, and lands in
     * the receiver's own one-shot slot of parity 0.
     */
    ONE_SHOT,
    /**
     * {@code twoshot_wsh}: the share is cut into one part per rank; part r goes to rank r and lands
     * in its own one-shot slot of parity 1, at the sender's index.
     */
    TWO_SHOT;

    /**
     * Whether this route's kernel runs on a node of {@code world} ranks: the one-shot's only on two
     * (its kernel reduces one peer's share), the two-shot's on any number from two.
     */
    boolean runsOn(int world) {
      return this == ONE_SHOT ? world == 2 : world >= 2;
    }
  }

  private final CudaDriverApi api;
  private final int deviceOrdinal;
  private final Stream outbound;
  private final Stream inbound;
  private final Event fork;
  private final Event outboundDone;
  private final Event inboundDone;
  private final HostStaging staging;
  private final PeerMemoryLayout layout;
  private final long[] bases;
  private final long ownBase;
  private final int rank;
  private final int world;
  private final HostPathSettings settings;
  // Set once, before the first call, when the trial of the communicator found the path slower.
  private volatile String notTakenReason = "";

  HostPath(
      CudaDevice device,
      HostStaging staging,
      PeerMemoryLayout layout,
      long[] bases,
      HostPathSettings settings) {
    this.api = CudaDriverApi.get();
    this.deviceOrdinal = device.ordinal();
    this.staging = staging;
    this.layout = layout;
    this.rank = staging.localRank();
    this.bases = bases.clone();
    this.ownBase = bases[rank];
    this.world = staging.world();
    this.settings = settings;
    this.outbound = device.createStream();
    this.inbound = device.createStream();
    this.fork = device.createOrderingEvent();
    this.outboundDone = device.createOrderingEvent();
    this.inboundDone = device.createOrderingEvent();
  }

  HostPathSettings settings() {
    return settings;
  }

  /** Whether {@code route}'s calls take the host path by default on this node. */
  boolean takes(Route route) {
    return notTakenReason.isEmpty() && settings.takes(route, world);
  }

  /** Bytes of a call of {@code bytes} that {@code route} sends by the host path by default. */
  long hostBytes(Route route, long bytes) {
    return notTakenReason.isEmpty() ? settings.hostBytes(route, bytes, world) : 0;
  }

  /**
   * From now on no call takes the host path unless its kernel is forced by name, for {@code
   * reason}.
   */
  void takeNoCallsByDefault(String reason) {
    if (reason.isEmpty()) {
      throw new IllegalArgumentException("a reason is needed");
    }
    notTakenReason = reason;
  }

  /** Why calls do not take the host path by default; empty when they do. */
  String notTakenReason() {
    return notTakenReason;
  }

  /** The route this node's calls take by default, if any (the trial measures that one). */
  Optional<Route> defaultRoute() {
    for (Route route : Route.values()) {
      if (settings.takes(route, world)) {
        return Optional.of(route);
      }
    }
    return Optional.empty();
  }

  /** Bytes of a call of {@code bytes} that {@code route} sends when the host path is forced. */
  long shareOf(Route route, long bytes) {
    return settings.shareOf(route, bytes, world);
  }

  /**
   * Starts sending the first {@code hostBytes} of {@code input} through host memory along {@code
   * route} and receiving the peers', on the copy streams forked from {@code stream}; the caller
   * then launches the kernel on {@code stream} and calls {@link #joinCopies}. With a {@code
   * timeline}, each step is marked on the stream that runs it.
   */
  void startCopies(
      Route route, long input, long hostBytes, int chunks, Stream stream, CallTimeline timeline) {
    // One-shot: every receiver gets all of it (one staged copy); two-shot: receiver r gets part r.
    long part = route == Route.ONE_SHOT ? 0 : hostBytes / world;
    long chunk = (route == Route.ONE_SHOT ? hostBytes : part) / chunks;
    fork.record(stream);
    outbound.waitFor(fork);
    inbound.waitFor(fork);
    enqueueOutbound(route, input, part, chunk, chunks, timeline);
    outboundDone.record(outbound);
    enqueueInbound(route, part, chunk, chunks, timeline);
    inboundDone.record(inbound);
  }

  /**
   * On two ranks the outbound stream must see every peer's in-use word cleared before it restages:
   * the one-shot's kernel, which waits for no peer's host chunks, may have run last. On more ranks
   * only the two-shot takes the host path, and it needs no words for that: this rank's previous
   * kernel waited for every peer's host flag, raised after that peer had received every chunk (its
   * ready words), and the copies fork after that kernel.
   */
  private boolean guardsStaging() {
    return world == 2;
  }

  /** Stages this rank's chunks in its host memory and tells each receiver, chunk by chunk. */
  private void enqueueOutbound(
      Route route, long input, long part, long chunk, int chunks, CallTimeline timeline) {
    MemorySegment out = CudaDevice.rawStream(outbound);
    if (guardsStaging()) {
      for (int step = 1; step < world; step++) {
        long inUse = ownBase + layout.hostInUseOffset(peerAt(step));
        check(api.streamWaitValue32Equal(out, inUse, 0), "cuStreamWaitValue32");
        check(api.streamWriteValue32(out, inUse, 1), "cuStreamWriteValue32");
      }
      mark(timeline, "out: peers freed", outbound);
    }
    long ownStaging = staging.stagingAddress(rank);
    for (int k = 0; k < chunks; k++) {
      if (route == Route.ONE_SHOT) {
        copy(ownStaging + k * chunk, input + k * chunk, chunk, out);
      } else {
        for (int step = 1; step < world; step++) {
          long offset = peerAt(step) * part + k * chunk;
          copy(ownStaging + offset, input + offset, chunk, out);
        }
      }
      mark(timeline, STAGED[k], outbound);
      for (int step = 1; step < world; step++) {
        check(
            api.streamWriteValue32(out, stagedWord(rank, peerAt(step), k), 1),
            "cuStreamWriteValue32");
      }
    }
  }

  /** Copies chunk k from every peer, each once staged, into this GPU, then tells the kernel. */
  private void enqueueInbound(
      Route route, long part, long chunk, int chunks, CallTimeline timeline) {
    MemorySegment in = CudaDevice.rawStream(inbound);
    long landing =
        ownBase
            + (route == Route.ONE_SHOT
                ? layout.hostReceiveOffset(rank)
                : layout.hostPartsOffset(rank));
    long sourceOffset = route == Route.ONE_SHOT ? 0 : rank * part;
    for (int k = 0; k < chunks; k++) {
      for (int step = 1; step < world; step++) {
        int sender = peerAt(step);
        long staged = stagedWord(sender, rank, k);
        check(api.streamWaitValue32Equal(in, staged, 1), "cuStreamWaitValue32");
        check(api.streamWriteValue32(in, staged, 0), "cuStreamWriteValue32");
        if (step == 1) {
          mark(timeline, PEER_STAGED[k], inbound);
        }
        copy(
            landing + sender * part + k * chunk,
            staging.stagingAddress(sender) + sourceOffset + k * chunk,
            chunk,
            in);
      }
      mark(timeline, RECEIVED[k], inbound);
      check(
          api.streamWriteValue32(in, ownBase + layout.hostReadyOffset(k), 1),
          "cuStreamWriteValue32");
    }
    for (int step = 1; guardsStaging() && step < world; step++) {
      check(
          api.streamWriteValue32(in, bases[peerAt(step)] + layout.hostInUseOffset(rank), 0),
          "cuStreamWriteValue32");
    }
  }

  /** Makes {@code stream} wait for both copy streams of the call {@link #startCopies} started. */
  void joinCopies(Stream stream) {
    stream.waitFor(outboundDone);
    stream.waitFor(inboundDone);
  }

  /** The word in {@code receiver}'s peer memory that says chunk k from {@code sender} is staged. */
  private long stagedWord(int sender, int receiver, int chunk) {
    return bases[receiver] + layout.hostStagedOffset(sender, chunk);
  }

  /** The rank {@code step} places after this one, as the kernels order peers. */
  private int peerAt(int step) {
    return (rank + step) % world;
  }

  private void copy(long destination, long source, long bytes, MemorySegment stream) {
    check(api.copyAsync(destination, source, bytes, stream), "cuMemcpyAsync");
  }

  // Step names per chunk, built once: a call allocates nothing.
  private static final String[] STAGED = stepNames("out: staged ");
  private static final String[] PEER_STAGED = stepNames("in: peer staged ");
  private static final String[] RECEIVED = stepNames("in: received ");

  private static String[] stepNames(String prefix) {
    String[] names = new String[PeerMemoryLayout.HOST_CHUNKS_MAX];
    for (int k = 0; k < names.length; k++) {
      names[k] = prefix + k;
    }
    return names;
  }

  private static void mark(CallTimeline timeline, String step, Stream stream) {
    if (timeline != null) {
      timeline.mark(step, stream);
    }
  }

  private void check(int result, String call) {
    api.check(result, call, deviceOrdinal);
  }

  @Override
  public void close() {
    inboundDone.close();
    outboundDone.close();
    fork.close();
    inbound.close();
    outbound.close();
    staging.close();
  }
}
