package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.IpcHandle;
import dev.gpucomm.runtime.device.ShareableBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.StreamMemoryOperations;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Point-to-point transfers over IPC with the get protocol, as nvFuser's CUDA-IPC backend runs them.
 *
 * <p>Each rank owns a semaphore area in shareable memory: one 32-bit word per (channel, peer,
 * side), a channel being one send statement of the program and the recv that pairs with it, the
 * side telling the word a rank keeps as sender to that peer from the one it keeps as receiver from
 * it (a rank may send to and receive from the same peer at once, in different iterations). Every
 * semaphore write goes to both copies (the writer's and the peer's), so every wait polls local
 * memory only. A transfer of channel c from sender s to receiver q:
 *
 * <ol>
 *   <li>s marks c in progress (its send word [c][q], then q's receive word [c][s]);
 *   <li>q waits until its receive word [c][s] is in progress, copies s's buffer into its own, and
 *       marks c idle (its receive word first, then s's send word [c][q]);
 *   <li>s, when it waits for the send, waits until its send word [c][q] is idle again.
 * </ol>
 *
 * All of it is stream-ordered; the host never blocks except to exchange handles the first time a
 * (channel, peer) pair is seen. Handles are cached, so later runs exchange nothing and need no
 * barrier. The semaphore area is zeroed (idle) and the device synchronized before its handle is
 * published, so no peer can write into it before it is clean.
 */
final class IpcGetProtocol {
  static final int IDLE = 0;
  static final int IN_PROGRESS = 1;
  private static final int SIDES = 2;
  private static final int SEND_SIDE = 0;
  private static final int RECEIVE_SIDE = 1;

  private final Device device;
  private final StreamMemoryOperations operations;
  private final KeyValueStore store;
  private final Duration timeout;
  private final int rank;
  private final int teamSize;
  private final ShareableBuffer semaphores;
  private final DeviceBuffer[] peerSemaphores;
  private final DeviceBuffer[][] peerBuffers;
  private final IpcHandle[][] published;
  private boolean semaphoresPublished;

  IpcGetProtocol(
      DeviceResources resources,
      StreamMemoryOperations operations,
      KeyValueStore store,
      Duration timeout,
      int rank,
      int teamSize,
      int channels) {
    this.device = resources.device();
    this.operations = operations;
    this.store = store;
    this.timeout = timeout;
    this.rank = rank;
    this.teamSize = teamSize;
    this.semaphores =
        resources.allocateShareable(Math.max(1, channels) * (long) teamSize * SIDES * 4);
    this.peerSemaphores = new DeviceBuffer[teamSize];
    this.peerBuffers = new DeviceBuffer[channels][teamSize];
    this.published = new IpcHandle[channels][teamSize];
    Stream stream = device.defaultStream();
    device.fill(semaphores, 0, semaphores.byteSize(), (byte) 0, stream);
    stream.synchronize();
  }

  /** Publishes this rank's send buffer of {@code channel} for {@code peer}, once. */
  void shareSend(int channel, int peer, DeviceBuffer buffer, ShareableBuffer root) {
    publishSemaphores();
    IpcHandle handle = handleOf(buffer, root);
    IpcHandle earlier = published[channel][peer];
    if (earlier == null) {
      store.set(key(channel, rank, peer), handle.encode().getBytes(StandardCharsets.UTF_8));
      published[channel][peer] = handle;
    } else if (!earlier.equals(handle)) {
      throw new IllegalStateException(
          "the IPC send buffer of channel "
              + channel
              + " to rank "
              + peer
              + " changed between runs; the get protocol caches handles, so a send buffer must"
              + " stay the same");
    }
    peerSemaphores(peer);
  }

  /** Maps the buffer {@code peer} sends on {@code channel}, once. */
  void shareRecv(int channel, int peer) {
    publishSemaphores();
    if (peerBuffers[channel][peer] == null) {
      peerBuffers[channel][peer] = device.openPeer(fetch(key(channel, peer, rank)));
    }
    peerSemaphores(peer);
  }

  void postSend(int channel, int peer, Stream stream) {
    operations.writeValue32(semaphores, offset(channel, peer, SEND_SIDE), IN_PROGRESS, stream);
    operations.writeValue32(
        peerSemaphores(peer), offset(channel, rank, RECEIVE_SIDE), IN_PROGRESS, stream);
  }

  void postRecv(int channel, int peer, DeviceBuffer destination, Stream stream) {
    DeviceBuffer source = peerBuffers[channel][peer];
    if (source == null) {
      throw new IllegalStateException(
          "IPC recv of channel "
              + channel
              + " from rank "
              + peer
              + " before ShareMemHandles exchanged its handle");
    }
    if (source.byteSize() != destination.byteSize()) {
      throw new IllegalStateException(
          "IPC recv of channel "
              + channel
              + ": rank "
              + peer
              + " sends "
              + source.byteSize()
              + " bytes into a buffer of "
              + destination.byteSize());
    }
    operations.waitValue32(semaphores, offset(channel, peer, RECEIVE_SIDE), IN_PROGRESS, stream);
    device.copy(destination, 0, source, 0, destination.byteSize(), stream);
    operations.writeValue32(semaphores, offset(channel, peer, RECEIVE_SIDE), IDLE, stream);
    operations.writeValue32(peerSemaphores(peer), offset(channel, rank, SEND_SIDE), IDLE, stream);
  }

  /** Makes {@code stream} wait until {@code peer} has finished reading this rank's buffer. */
  void waitSent(int channel, int peer, Stream stream) {
    operations.waitValue32(semaphores, offset(channel, peer, SEND_SIDE), IDLE, stream);
  }

  private long offset(int channel, int peer, int side) {
    return (((long) channel * teamSize + peer) * SIDES + side) * 4;
  }

  private void publishSemaphores() {
    if (!semaphoresPublished) {
      store.set(
          "semaphores/" + rank, semaphores.handle().encode().getBytes(StandardCharsets.UTF_8));
      semaphoresPublished = true;
    }
  }

  private DeviceBuffer peerSemaphores(int peer) {
    if (peerSemaphores[peer] == null) {
      peerSemaphores[peer] = device.openPeer(fetch("semaphores/" + peer));
    }
    return peerSemaphores[peer];
  }

  private IpcHandle fetch(String key) {
    return IpcHandle.decode(new String(store.get(key, timeout), StandardCharsets.UTF_8));
  }

  private static String key(int channel, int sender, int receiver) {
    return "channel" + channel + "/" + sender + "->" + receiver;
  }

  private static IpcHandle handleOf(DeviceBuffer buffer, ShareableBuffer root) {
    long delta = buffer.address() - root.address();
    if (delta < 0 || delta + buffer.byteSize() > root.byteSize()) {
      throw new IllegalStateException("IPC send buffer lies outside its allocation");
    }
    IpcHandle base = root.handle();
    return new IpcHandle(base.handleBytes(), base.offset() + delta, buffer.byteSize());
  }
}
