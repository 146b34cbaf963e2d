package dev.gpucomm.runtime.rendezvous;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * One rank's connection to the rendezvous store. Connecting retries until a deadline, because the
 * store's host may start after this rank. Calls are serialized on the one connection; blocking
 * calls carry their timeout to the server, which answers with the rendezvous state when it expires.
 */
public final class TcpStoreClient implements KeyValueStore {
  /** How long a non-blocking request may take before the store is considered lost. */
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

  /** Extra time the client waits beyond a blocking call's timeout for the server's answer. */
  private static final Duration ANSWER_GRACE = Duration.ofSeconds(10);

  private final RendezvousAddress address;
  private final int rank;
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private final Map<String, Integer> barrierRounds = new HashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * Set once this rank fails and starts to leave: the store's answer to its own failure, which
   * reaches this rank's watch too, is no other rank's failure to report.
   */
  private final AtomicBoolean leaving = new AtomicBoolean();

  private TcpStoreClient(RendezvousAddress address, int rank, Socket socket) throws IOException {
    this.address = address;
    this.rank = rank;
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream());
    this.out = new BufferedOutputStream(socket.getOutputStream());
  }

  /**
   * Connects as {@code rank} of a world of {@code worldSize} that names no run, retrying until
   * {@code connectTimeout} has passed.
   */
  public static TcpStoreClient connect(
      RendezvousAddress address, int rank, int worldSize, Duration connectTimeout) {
    return connect(address, rank, worldSize, RunId.NONE, connectTimeout);
  }

  /**
   * Connects as {@code rank} of run {@code run} of a world of {@code worldSize}, retrying until
   * {@code connectTimeout} has passed; a store of another run refuses it.
   */
  public static TcpStoreClient connect(
      RendezvousAddress address, int rank, int worldSize, RunId run, Duration connectTimeout) {
    Socket socket = connectWithRetries(address, connectTimeout);
    try {
      TcpStoreClient client = new TcpStoreClient(address, rank, socket);
      client.request(
          new StoreProtocol.Frame(StoreProtocol.HELLO)
              .writeInt(rank)
              .writeInt(worldSize)
              .writeString(run.value()),
          REQUEST_TIMEOUT,
          "hello");
      return client;
    } catch (IOException | RuntimeException e) {
      closeQuietly(socket);
      if (e instanceof RendezvousException rendezvous) {
        throw rendezvous;
      }
      throw new RendezvousException(
          "rendezvous: store at " + address + " broke the connection (" + describe(e) + ")", e);
    }
  }

  private static Socket connectWithRetries(RendezvousAddress address, Duration timeout) {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    long pauseMillis = 20;
    IOException last = null;
    while (true) {
      Socket socket = new Socket();
      try {
        // At least 250 ms per attempt: a last attempt squeezed into the final millisecond would
        // only report its own timeout instead of what the host answered.
        long leftMillis = Math.max(250, (deadline - System.nanoTime()) / 1_000_000);
        socket.connect(
            new InetSocketAddress(address.host(), address.port()),
            (int) Math.min(leftMillis, 5_000));
        socket.setTcpNoDelay(true);
        socket.setKeepAlive(true);
        return socket;
      } catch (IOException e) {
        closeQuietly(socket);
        if (last == null || !(e instanceof SocketTimeoutException)) {
          last = e; // a refusal or an unknown host says more than a timeout
        }
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new RendezvousException(
            String.format(
                Locale.ROOT,
                "rendezvous: cannot reach the store at %s after %.1f s (%s)",
                address,
                (System.nanoTime() - start) / 1e9,
                describe(last)),
            last);
      }
      try {
        Thread.sleep(Math.min(pauseMillis, left / 1_000_000 + 1)); // back-off between attempts
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RendezvousException("rendezvous: interrupted while connecting to " + address);
      }
      pauseMillis = Math.min(pauseMillis * 2, 500);
    }
  }

  public int rank() {
    return rank;
  }

  public RendezvousAddress address() {
    return address;
  }

  @Override
  public void set(String key, byte[] value) {
    call(
        new StoreProtocol.Frame(StoreProtocol.SET).writeString(key).writeBytes(value),
        REQUEST_TIMEOUT,
        "set '" + key + "'");
  }

  @Override
  public byte[] get(String key, Duration timeout) {
    return call(
        new StoreProtocol.Frame(StoreProtocol.GET).writeString(key).writeLong(timeout.toMillis()),
        timeout.plus(ANSWER_GRACE),
        "get '" + key + "'");
  }

  @Override
  public long add(String key, long delta) {
    byte[] sum =
        call(
            new StoreProtocol.Frame(StoreProtocol.ADD).writeString(key).writeLong(delta),
            REQUEST_TIMEOUT,
            "add '" + key + "'");
    return Long.parseLong(new String(sum, StandardCharsets.UTF_8));
  }

  /**
   * Waits for {@code participants} ranks at the barrier {@code name}. A name may be reused: each
   * rank counts its own rounds, so the n-th call of every rank meets the n-th call of the others.
   */
  @Override
  public void barrier(String name, int participants, Duration timeout) {
    int round;
    synchronized (this) {
      round = barrierRounds.merge(name, 1, Integer::sum);
    }
    call(
        new StoreProtocol.Frame(StoreProtocol.BARRIER)
            .writeString(name)
            .writeInt(round)
            .writeInt(participants)
            .writeInt(rank)
            .writeLong(timeout.toMillis()),
        timeout.plus(ANSWER_GRACE),
        "barrier '" + name + "'");
  }

  /**
   * Opens a second connection that waits for any rank to disconnect or fall silent and then calls
   * {@code onFailure} with the store's message (also when the store itself goes away or stops
   * echoing heartbeats). Heartbeats per {@link Liveness#DEFAULT} travel on it. The watcher stops
   * silently when closed; closing this client closes it too.
   */
  public PeerWatch watchPeers(Consumer<String> onFailure) {
    return watchPeers(onFailure, Liveness.DEFAULT);
  }

  /** Watches as {@link #watchPeers(Consumer)} does, with heartbeats per {@code liveness}. */
  public PeerWatch watchPeers(Consumer<String> onFailure, Liveness liveness) {
    Socket watchSocket = connectWithRetries(address, Duration.ofSeconds(10));
    AtomicBoolean stopped = new AtomicBoolean();
    Thread watcher =
        Thread.ofPlatform()
            .daemon()
            .name("rendezvous-watch")
            .start(
                () -> {
                  String message = watch(watchSocket, liveness, stopped);
                  if (!stopped.get() && !closed.get() && !leaving.get()) {
                    onFailure.accept(message);
                  }
                });
    return () -> {
      stopped.set(true);
      closeQuietly(watchSocket);
      watcher.interrupt();
    };
  }

  /** Sends the watch and its heartbeats, skips the echoes; returns the failure that ends it. */
  private String watch(Socket watchSocket, Liveness liveness, AtomicBoolean stopped) {
    Thread beater = null;
    try {
      OutputStream watchOut = new BufferedOutputStream(watchSocket.getOutputStream());
      new StoreProtocol.Frame(StoreProtocol.WATCH).sendTo(watchOut);
      beater =
          Thread.ofPlatform()
              .daemon()
              .name("rendezvous-heartbeat")
              .start(() -> beat(watchOut, liveness, stopped));
      watchSocket.setSoTimeout(
          (int) Math.min(Integer.MAX_VALUE, liveness.storeSilenceLimit().toMillis()));
      InputStream watchIn = new BufferedInputStream(watchSocket.getInputStream());
      while (true) {
        DataInputStream answer = StoreProtocol.readFrame(watchIn);
        if (answer == null) {
          return "rendezvous: lost the store at " + address;
        }
        byte status = answer.readByte();
        StoreProtocol.readBytes(answer);
        if (status != StoreProtocol.BEAT) {
          return answer.readUTF();
        }
      }
    } catch (SocketTimeoutException e) {
      return String.format(
          Locale.ROOT,
          "rendezvous: the store at %s answered no heartbeat of rank %d for %.1f s (its host or"
              + " the network link between them is gone)",
          address,
          rank,
          liveness.storeSilenceLimit().toMillis() / 1e3);
    } catch (IOException e) {
      return "rendezvous: lost the store at " + address + " (" + describe(e) + ")";
    } finally {
      if (beater != null) {
        beater.interrupt();
      }
    }
  }

  /** Sends a heartbeat every interval until the watch stops or its connection breaks. */
  private void beat(OutputStream watchOut, Liveness liveness, AtomicBoolean stopped) {
    StoreProtocol.Frame heartbeat = new StoreProtocol.Frame(StoreProtocol.HEARTBEAT).writeInt(rank);
    try {
      while (!stopped.get() && !closed.get() && !Thread.currentThread().isInterrupted()) {
        heartbeat.sendTo(watchOut);
        LockSupport.parkNanos(liveness.beatInterval().toNanos());
      }
    } catch (IOException e) {
      // The watch connection broke: the watcher reports it.
    }
  }

  private byte[] call(StoreProtocol.Frame frame, Duration answerTimeout, String what) {
    try {
      return request(frame, answerTimeout, what);
    } catch (SocketTimeoutException e) {
      throw new RendezvousTimeoutException(
          "rendezvous: the store at " + address + " did not answer " + what + " in time");
    } catch (IOException e) {
      throw new RendezvousException(
          "rendezvous: lost the store at " + address + " during " + what + " (" + describe(e) + ")",
          e);
    }
  }

  private byte[] request(StoreProtocol.Frame frame, Duration answerTimeout, String what)
      throws IOException {
    requests.lock();
    try {
      return requestHoldingLock(frame, answerTimeout, what);
    } finally {
      requests.unlock();
    }
  }

  /** One request at a time on the connection: a frame out, its answer in. */
  private final ReentrantLock requests = new ReentrantLock();

  private byte[] requestHoldingLock(StoreProtocol.Frame frame, Duration answerTimeout, String what)
      throws IOException {
    if (closed.get()) {
      throw new IllegalStateException("rendezvous client is closed");
    }
    socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(1, answerTimeout.toMillis())));
    frame.sendTo(out);
    DataInputStream answer = StoreProtocol.readFrame(in);
    if (answer == null) {
      throw new IOException("connection closed");
    }
    byte status = answer.readByte();
    byte[] value = StoreProtocol.readBytes(answer);
    String message = answer.readUTF();
    return switch (status) {
      case StoreProtocol.OK -> value;
      case StoreProtocol.TIMEOUT -> throw new RendezvousTimeoutException(message);
      case StoreProtocol.FAILED -> throw new RendezvousException(message);
      case StoreProtocol.PEER_FAILED -> throw new PeerFailedException(message);
      default -> throw new IOException("unknown status " + status + " answering " + what);
    };
  }

  /**
   * Disconnects without a goodbye, as a crashed process would: the store then fails every other
   * rank's waits at once instead of letting them run into their timeouts. For a rank that failed.
   */
  public void abandon() {
    leaving.set(true);
    if (closed.compareAndSet(false, true)) {
      closeQuietly(socket);
    }
  }

  /**
   * Leaves as {@link #abandon()} does, first telling the store {@code reason}, which it gives the
   * other ranks: they fail naming this rank's error, not only that it went away.
   */
  public void abandon(String reason) {
    if (closed.get()) {
      return;
    }
    leaving.set(true);
    try {
      // another thread of this rank may be in a long wait on the connection: then the reason
      // stays unsaid, and leaving alone tells the store
      if (requests.tryLock(REASON_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        try {
          requestHoldingLock(
              new StoreProtocol.Frame(StoreProtocol.FAIL).writeString(shortened(reason)),
              REASON_TIMEOUT,
              "fail");
        } finally {
          requests.unlock();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException ignored) {
      // the store may be gone too: leaving is what tells it
    }
    abandon();
  }

  /** How long a failing rank waits for the store to take its reason. */
  private static final Duration REASON_TIMEOUT = Duration.ofSeconds(2);

  /** writeUTF takes at most 65535 bytes; the store keeps far less. */
  private static String shortened(String reason) {
    return reason.length() > 4 * StoreState.MAX_REASON_CHARS
        ? reason.substring(0, 4 * StoreState.MAX_REASON_CHARS)
        : reason;
  }

  /** Says goodbye (so the store does not report this rank as failed) and disconnects. */
  @Override
  public void close() {
    if (closed.get()) {
      return;
    }
    try {
      request(new StoreProtocol.Frame(StoreProtocol.BYE), Duration.ofSeconds(5), "bye");
    } catch (IOException | RuntimeException ignored) {
      // The store may already be gone at the end of a job; leaving anyway.
    }
    closed.set(true);
    closeQuietly(socket);
  }

  private static String describe(Throwable e) {
    if (e instanceof UnknownHostException) {
      return "unknown host " + e.getMessage();
    }
    if (e instanceof SocketTimeoutException) {
      return "no answer";
    }
    String message = e.getMessage();
    return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // Nothing to do.
    }
  }
}
