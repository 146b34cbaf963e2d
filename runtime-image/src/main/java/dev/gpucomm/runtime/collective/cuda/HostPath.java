package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.device.cuda.CudaDriverApi;
import java.lang.foreign.MemorySegment;

/**
 * The copies of the one-shot's host path on one of two ranks (see {@code HostWords} in
 * allreduce.cu): around each {@code oneshot_wsh} kernel, an outbound stream stages this rank's host
 * share in host memory chunk by chunk and tells the peer, and an inbound stream copies the peer's
 * staged chunks into this GPU and tells the kernel. Both streams fork from and join the caller's
 * stream, and every word they write holds a constant, so a call captured in a CUDA graph replays.
 *
 * <p>Owns its two streams, three events and the host staging.
 */
final class HostPath implements AutoCloseable {
  private final CudaDriverApi api;
  private final int deviceOrdinal;
  private final Stream outbound;
  private final Stream inbound;
  private final Event fork;
  private final Event outboundDone;
  private final Event inboundDone;
  private final HostStaging staging;
  private final PeerMemoryLayout layout;
  private final long ownBase;
  private final int rank;
  private final HostPathSettings settings;

  HostPath(
      CudaDevice device,
      HostStaging staging,
      PeerMemoryLayout layout,
      long ownBase,
      int rank,
      HostPathSettings settings) {
    this.api = CudaDriverApi.get();
    this.deviceOrdinal = device.ordinal();
    this.staging = staging;
    this.layout = layout;
    this.ownBase = ownBase;
    this.rank = rank;
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

  /**
   * Starts sending the first {@code hostBytes} of {@code input} (equal chunks of whole vectors)
   * through host memory and receiving the peer's, on the copy streams forked from {@code stream};
   * the caller then launches the kernel on {@code stream} and calls {@link #joinCopies}. With a
   * {@code timeline}, each step is marked on the stream that runs it.
   */
  void startCopies(long input, long hostBytes, int chunks, Stream stream, CallTimeline timeline) {
    long chunk = hostBytes / chunks;
    MemorySegment out = CudaDevice.rawStream(outbound);
    MemorySegment in = CudaDevice.rawStream(inbound);
    fork.record(stream);
    outbound.waitFor(fork);
    inbound.waitFor(fork);

    // Outbound: once the peer has reduced the previous call's share, stage this one.
    long busy = ownBase + layout.hostBusyOffset();
    check(api.streamWaitValue32Equal(out, busy, 0), "cuStreamWaitValue32");
    check(api.streamWriteValue32(out, busy, 1), "cuStreamWriteValue32");
    mark(timeline, "out: peer freed", outbound);
    for (int k = 0; k < chunks; k++) {
      check(
          api.copyAsync(staging.ownAddress() + k * chunk, input + k * chunk, chunk, out),
          "cuMemcpyAsync");
      mark(timeline, STAGED[k], outbound);
      check(
          api.streamWriteValue32(out, staging.ownWordsAddress() + 4L * k, 1),
          "cuStreamWriteValue32");
    }
    outboundDone.record(outbound);

    // Inbound: each of the peer's chunks, once staged, into this rank's own receive slot.
    long received = ownBase + layout.hostReceiveOffset(rank);
    for (int k = 0; k < chunks; k++) {
      long staged = staging.peerWordsAddress() + 4L * k;
      check(api.streamWaitValue32Equal(in, staged, 1), "cuStreamWaitValue32");
      check(api.streamWriteValue32(in, staged, 0), "cuStreamWriteValue32");
      mark(timeline, PEER_STAGED[k], inbound);
      check(
          api.copyAsync(received + k * chunk, staging.peerAddress() + k * chunk, chunk, in),
          "cuMemcpyAsync");
      mark(timeline, RECEIVED[k], inbound);
      check(
          api.streamWriteValue32(in, ownBase + layout.hostReadyOffset(k), 1),
          "cuStreamWriteValue32");
    }
    inboundDone.record(inbound);
  }

  /** Makes {@code stream} wait for both copy streams of the call {@link #startCopies} started. */
  void joinCopies(Stream stream) {
    stream.waitFor(outboundDone);
    stream.waitFor(inboundDone);
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
