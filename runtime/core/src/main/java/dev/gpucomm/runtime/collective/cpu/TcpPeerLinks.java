package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * The TCP connections of one rank to every rank of the other pods: one connection per pair, set up
 * through the rendezvous store, each with {@link CpuBackendConfig#CHANNEL_SLOTS} send and receive
 * slots in direct buffers allocated once.
 *
 * <p>Every rank listens on an ephemeral port at its pod's address and publishes {@code host:port};
 * the lower rank of a pair connects and opens with a handshake naming both ranks and the
 * communicator. Sockets are non-blocking: a message is framed (a header with its length) into a
 * send slot and written as far as the socket takes it; whatever is left, and whatever arrives, is
 * moved whenever this rank waits for anything ({@link #advance}), so a rank blocked in a
 * shared-memory wait never stalls the link of another pod, and a ring whose every rank sends before
 * it receives cannot deadlock on full sockets. Waits time out like the shared-memory ones, and a
 * connection that closes or resets fails the wait that needs it, naming the peer and its pod.
 */
final class TcpPeerLinks implements MessageChannels, FlagWait.Progress, AutoCloseable {
  private static final int SLOTS = CpuBackendConfig.CHANNEL_SLOTS;

  /** Frame header: the message length, padded so that bodies stay 16-byte aligned. */
  private static final int HEADER_BYTES = 16;

  private static final ValueLayout.OfInt LENGTH = ValueLayout.JAVA_INT_UNALIGNED;

  private static final String GONE = "it failed, exited or closed its communicator";

  private static final int HANDSHAKE_MAGIC = 0x4743_5450;
  private static final int HANDSHAKE_BYTES = 16;
  private static final long SETUP_POLL_NANOS = 200_000;

  private final int rank;
  private final int slotBytes;
  private final FlagWait wait;
  private final Link[] links;
  private final Link[] connected;

  private TcpPeerLinks(int rank, int slotBytes, FlagWait wait, Link[] links) {
    this.rank = rank;
    this.slotBytes = slotBytes;
    this.wait = wait;
    this.links = links;
    int count = 0;
    for (Link link : links) {
      count += link == null ? 0 : 1;
    }
    this.connected = new Link[count];
    int next = 0;
    for (Link link : links) {
      if (link != null) {
        connected[next++] = link;
      }
    }
  }

  /**
   * Connects this rank to every rank of the other pods. Every rank of the job calls this for the
   * same communicator ({@code namespace}) at about the same time.
   */
  static TcpPeerLinks connect(
      RankTopology topology,
      InetAddress podAddress,
      KeyValueStore store,
      String namespace,
      long communicator,
      CpuBackendConfig config,
      FlagWait wait) {
    int rank = topology.rank();
    int worldSize = topology.worldSize();
    int ranksPerPod = topology.localWorldSize();
    Link[] links = new Link[worldSize];
    long deadline = System.nanoTime() + config.rendezvousTimeout().toNanos();
    try (ServerSocketChannel listener = ServerSocketChannel.open()) {
      listener.bind(new InetSocketAddress(podAddress, 0), worldSize);
      listener.configureBlocking(false);
      InetSocketAddress bound = (InetSocketAddress) listener.getLocalAddress();
      store.set(
          addressKey(namespace, rank),
          (bound.getAddress().getHostAddress() + " " + bound.getPort())
              .getBytes(StandardCharsets.UTF_8));
      int lowerPeers = 0;
      for (int peer = 0; peer < worldSize; peer++) {
        if (peer / ranksPerPod == rank / ranksPerPod) {
          continue;
        }
        if (peer < rank) {
          lowerPeers++;
          continue;
        }
        String[] address =
            new String(
                    store.get(addressKey(namespace, peer), config.rendezvousTimeout()),
                    StandardCharsets.UTF_8)
                .split(" ");
        SocketChannel channel = SocketChannel.open();
        try {
          channel
              .socket()
              .connect(
                  new InetSocketAddress(address[0], Integer.parseInt(address[1])),
                  (int) Math.max(1, config.rendezvousTimeout().toMillis()));
          writeHandshake(channel, rank, peer, communicator);
        } catch (IOException e) {
          channel.close();
          throw new UncheckedIOException(
              "rank %d cannot connect to rank %d (pod %d) at %s:%s"
                  .formatted(rank, peer, peer / ranksPerPod, address[0], address[1]),
              e);
        }
        links[peer] = new Link(peer, ranksPerPod, channel, config.channelSlotBytes());
      }
      for (int accepted = 0; accepted < lowerPeers; accepted++) {
        SocketChannel channel = accept(listener, rank, deadline, config.rendezvousTimeout());
        int peer = readHandshake(channel, rank, communicator, deadline);
        if (peer >= rank || peer / ranksPerPod == rank / ranksPerPod || links[peer] != null) {
          channel.close();
          throw new IllegalStateException(
              "rank %d got an unexpected connection from rank %d".formatted(rank, peer));
        }
        links[peer] = new Link(peer, ranksPerPod, channel, config.channelSlotBytes());
      }
      for (Link link : links) {
        if (link != null) {
          link.prepare();
        }
      }
      TcpPeerLinks built = new TcpPeerLinks(rank, config.channelSlotBytes(), wait, links);
      wait.progressWith(built);
      return built;
    } catch (IOException | RuntimeException e) {
      for (Link link : links) {
        if (link != null) {
          link.close();
        }
      }
      if (e instanceof IOException io) {
        throw new UncheckedIOException(
            "rank %d cannot set up its TCP links to the other pods".formatted(rank), io);
      }
      throw (RuntimeException) e;
    }
  }

  private static String addressKey(String namespace, int rank) {
    return namespace + "rank-" + rank + "/tcp-address";
  }

  private static SocketChannel accept(
      ServerSocketChannel listener, int rank, long deadline, Duration timeout) throws IOException {
    while (true) {
      SocketChannel channel = listener.accept();
      if (channel != null) {
        return channel;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new PeerTimeoutException(
            "rank %d: the ranks of lower-numbered pods did not connect within %d ms"
                .formatted(rank, timeout.toMillis()));
      }
      LockSupport.parkNanos(SETUP_POLL_NANOS);
    }
  }

  private static void writeHandshake(SocketChannel channel, int rank, int peer, long communicator)
      throws IOException {
    ByteBuffer handshake = ByteBuffer.allocate(HANDSHAKE_BYTES);
    handshake.putInt(HANDSHAKE_MAGIC).putInt(rank).putInt(peer).putInt((int) communicator).flip();
    while (handshake.hasRemaining()) {
      channel.write(handshake);
    }
  }

  /** Reads the handshake of a new connection; returns the connecting rank. */
  private static int readHandshake(
      SocketChannel channel, int rank, long communicator, long deadline) throws IOException {
    channel.configureBlocking(false);
    ByteBuffer handshake = ByteBuffer.allocate(HANDSHAKE_BYTES);
    while (handshake.hasRemaining()) {
      if (channel.read(handshake) < 0) {
        throw new IOException("a connection to rank " + rank + " closed during its handshake");
      }
      if (handshake.hasRemaining()) {
        if (System.nanoTime() - deadline > 0) {
          throw new IOException("a connection to rank " + rank + " sent no handshake");
        }
        LockSupport.parkNanos(SETUP_POLL_NANOS);
      }
    }
    handshake.flip();
    int magic = handshake.getInt();
    int from = handshake.getInt();
    int to = handshake.getInt();
    int instance = handshake.getInt();
    if (magic != HANDSHAKE_MAGIC || to != rank || instance != (int) communicator) {
      throw new IOException(
          "rank %d got a connection that is not for it (to rank %d, communicator %d, magic %08x)"
              .formatted(rank, to, instance, magic));
    }
    return from;
  }

  @Override
  public int slotBytes() {
    return slotBytes;
  }

  @Override
  public MemorySegment acquireSendSlot(int to, String operation) {
    Link link = links[to];
    if (!await(link.freeSendSlot, operation)) {
      throw timeout(
          operation,
          "rank %d (pod %d) did not take data from its connection (message %d waits for a slot, %d written)"
              .formatted(to, link.pod, link.published, link.written));
    }
    return link.sendBodies[(int) (link.published % SLOTS)];
  }

  @Override
  public void publish(int to, long bytes, String operation) {
    links[to].publish((int) bytes);
  }

  @Override
  public MemorySegment awaitMessage(int from, String operation) {
    Link link = links[from];
    if (!await(link.messageArrived, operation)) {
      throw timeout(
          operation,
          "rank %d (pod %d) did not send the expected data (waiting for message %d, %d received)"
              .formatted(from, link.pod, link.released + 1, link.received));
    }
    return link.receiveBodies[(int) (link.released % SLOTS)];
  }

  @Override
  public void release(int from) {
    Link link = links[from];
    link.released++;
    link.receive();
  }

  @Override
  public void drain(int to, String operation) {
    Link link = links[to];
    if (!await(link.drained, operation)) {
      throw timeout(
          operation,
          "rank %d (pod %d) did not take all data from its connection (%d messages sent, %d written)"
              .formatted(to, link.pod, link.published, link.written));
    }
  }

  /** Moves data on every link as far as the sockets allow; never blocks, never throws. */
  @Override
  public void advance() {
    for (Link link : connected) {
      link.send();
      link.receive();
    }
  }

  private boolean await(FlagWait.Condition condition, String operation) {
    try {
      return wait.await(condition, operation);
    } catch (LinkBrokenException e) {
      throw new PeerFailedException(
          "%s on rank %d gave up: %s".formatted(operation, rank, e.getMessage()));
    }
  }

  private PeerTimeoutException timeout(String operation, String what) {
    return new PeerTimeoutException(
        "%s on rank %d: %s within %d ms"
            .formatted(operation, rank, what, wait.timeout().toMillis()));
  }

  /**
   * Closes every connection: peers that still wait for this rank fail at once, naming it, instead
   * of at their timeout.
   */
  @Override
  public void close() {
    for (Link link : connected) {
      link.close();
    }
  }

  /** A link's peer is gone; turned into a {@link PeerFailedException} naming the operation. */
  private static final class LinkBrokenException extends RuntimeException {
    LinkBrokenException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * One connection: the send and receive slots and how far each side has got. Written only by the
   * thread that runs the communicator's collectives.
   */
  private static final class Link {
    private final int peer;
    private final int pod;
    private final SocketChannel channel;
    private final int frameBytes;
    private final ByteBuffer sendBuffer;
    private final ByteBuffer receiveBuffer;

    // Headers are read and written through the segments: a buffer's absolute get and put check
    // against its limit, which the socket calls move.
    private final MemorySegment sendFrames;
    private final MemorySegment receiveFrames;
    private final MemorySegment[] sendBodies = new MemorySegment[SLOTS];
    private final MemorySegment[] receiveBodies = new MemorySegment[SLOTS];
    private final int[] sendLengths = new int[SLOTS];

    /** Messages handed to {@link #publish}, and those written completely to the socket. */
    private long published;

    private long written;
    private int writeProgress;

    /** Messages read completely from the socket, and those the algorithm has given back. */
    private long received;

    private long released;
    private int readProgress;
    private volatile String broken;

    private final FlagWait.Condition freeSendSlot;
    private final FlagWait.Condition messageArrived;
    private final FlagWait.Condition drained;

    Link(int peer, int ranksPerPod, SocketChannel channel, int slotBytes) {
      this.peer = peer;
      this.pod = peer / ranksPerPod;
      this.channel = channel;
      this.frameBytes = HEADER_BYTES + slotBytes;
      this.sendBuffer = ByteBuffer.allocateDirect(SLOTS * frameBytes);
      this.receiveBuffer = ByteBuffer.allocateDirect(SLOTS * frameBytes);
      this.sendFrames = MemorySegment.ofBuffer(sendBuffer);
      this.receiveFrames = MemorySegment.ofBuffer(receiveBuffer);
      for (int slot = 0; slot < SLOTS; slot++) {
        long body = (long) slot * frameBytes + HEADER_BYTES;
        sendBodies[slot] = sendFrames.asSlice(body, slotBytes);
        receiveBodies[slot] = receiveFrames.asSlice(body, slotBytes);
      }
      this.freeSendSlot =
          () -> {
            send();
            return published - written < SLOTS || failIfBroken();
          };
      this.messageArrived =
          () -> {
            receive();
            return received > released || failIfBroken();
          };
      this.drained =
          () -> {
            send();
            return written == published || failIfBroken();
          };
    }

    void prepare() throws IOException {
      channel.configureBlocking(false);
      channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }

    void publish(int bytes) {
      int slot = (int) (published % SLOTS);
      sendLengths[slot] = bytes;
      sendFrames.set(LENGTH, (long) slot * frameBytes, bytes);
      published++;
      send();
    }

    /** Writes queued frames until the socket takes no more. */
    void send() {
      try {
        while (written < published && broken == null) {
          int slot = (int) (written % SLOTS);
          int start = slot * frameBytes;
          int frame = HEADER_BYTES + sendLengths[slot];
          sendBuffer.limit(start + frame).position(start + writeProgress);
          int count = channel.write(sendBuffer);
          writeProgress += count;
          if (writeProgress < frame) {
            return;
          }
          writeProgress = 0;
          written++;
        }
      } catch (IOException e) {
        broken = "its connection broke (" + e.getMessage() + "): " + GONE;
      }
    }

    /** Reads arriving frames into free receive slots until the socket has no more. */
    void receive() {
      try {
        while (received - released < SLOTS && broken == null) {
          int start = (int) (received % SLOTS) * frameBytes;
          int frame =
              readProgress < HEADER_BYTES
                  ? HEADER_BYTES
                  : HEADER_BYTES + receiveFrames.get(LENGTH, start);
          receiveBuffer.limit(start + frame).position(start + readProgress);
          int count = channel.read(receiveBuffer);
          if (count < 0) {
            broken = "it closed its connection: " + GONE;
            return;
          }
          readProgress += count;
          if (readProgress == HEADER_BYTES) {
            int length = receiveFrames.get(LENGTH, start);
            if (length < 0 || length > frameBytes - HEADER_BYTES) {
              broken = "it sent a frame of " + length + " bytes, which no slot holds";
              return;
            }
            if (length == 0) {
              readProgress = 0;
              received++;
              continue;
            }
          } else if (readProgress >= HEADER_BYTES
              && readProgress == HEADER_BYTES + receiveFrames.get(LENGTH, start)) {
            readProgress = 0;
            received++;
            continue;
          }
          if (count == 0) {
            return;
          }
        }
      } catch (IOException e) {
        broken = "its connection broke (" + e.getMessage() + "): " + GONE;
      }
    }

    private boolean failIfBroken() {
      String why = broken;
      if (why != null) {
        throw new LinkBrokenException("rank %d (pod %d): %s".formatted(peer, pod, why));
      }
      return false;
    }

    void close() {
      try {
        channel.close();
      } catch (IOException e) {
        // Closing is best effort: the peer sees the connection end either way.
      }
    }
  }
}
