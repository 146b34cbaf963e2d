package dev.gpucomm.runtime.rendezvous;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The rendezvous store's server: a TCP key-value store for one job, hosted next to global rank 0.
 * Each connection is served by virtual threads, so thousands of waiting ranks cost no platform
 * threads. A rank whose connection closes without a goodbye is reported as disconnected, and every
 * open wait fails fast instead of running into its timeout; so is a rank whose heartbeats stop
 * ({@link Liveness}), which is all a cut network link shows.
 */
public final class TcpStoreServer implements AutoCloseable {
  private final ServerSocket serverSocket;
  private final StoreState state;
  private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread acceptor;
  private final Thread heartbeatChecker;

  private TcpStoreServer(ServerSocket serverSocket, Liveness liveness, StoreState state) {
    this.serverSocket = serverSocket;
    this.state = state;
    this.acceptor =
        Thread.ofPlatform().daemon().name("rendezvous-accept").start(this::acceptConnections);
    this.heartbeatChecker =
        Thread.ofPlatform()
            .daemon()
            .name("rendezvous-heartbeats")
            .start(() -> checkHeartbeats(liveness));
  }

  /** Listens on {@code port} (0 picks a free one) of every local address. */
  public static TcpStoreServer start(int port) throws IOException {
    return start(null, port);
  }

  /** Listens on {@code port} of {@code bindAddress} (null: every local address). */
  public static TcpStoreServer start(InetAddress bindAddress, int port) throws IOException {
    return start(bindAddress, port, Liveness.DEFAULT);
  }

  /**
   * Listens as {@link #start(InetAddress, int)} does, for run {@code run} of a job of {@code
   * worldSize} ranks: a connection that says another world size is refused, rather than fixing the
   * world for the job's own ranks (the first to connect would otherwise decide it), and so is one
   * of another run.
   */
  public static TcpStoreServer startForRun(
      InetAddress bindAddress, int port, int worldSize, RunId run) throws IOException {
    return start(bindAddress, port, Liveness.DEFAULT, StoreState.forRun(worldSize, run));
  }

  /** As {@link #startForRun}, for ranks that name no run ({@link RunId#NONE}). */
  public static TcpStoreServer startForWorld(InetAddress bindAddress, int port, int worldSize)
      throws IOException {
    return startForRun(bindAddress, port, worldSize, RunId.NONE);
  }

  /**
   * Listens as {@link #start(InetAddress, int)} does, declaring silent ranks per {@code liveness}.
   */
  public static TcpStoreServer start(InetAddress bindAddress, int port, Liveness liveness)
      throws IOException {
    return start(bindAddress, port, liveness, new StoreState());
  }

  private static TcpStoreServer start(
      InetAddress bindAddress, int port, Liveness liveness, StoreState state) throws IOException {
    ServerSocket socket = new ServerSocket();
    socket.setReuseAddress(true);
    try {
      socket.bind(new InetSocketAddress(bindAddress, port), 1024);
    } catch (BindException e) {
      socket.close();
      // still a BindException, so that a caller can tell a port it cannot have from a failure
      BindException refused =
          new BindException("cannot listen on port " + port + ": " + e.getMessage());
      refused.initCause(e);
      throw refused;
    } catch (IOException e) {
      socket.close();
      throw new IOException("cannot listen on port " + port + ": " + e.getMessage(), e);
    }
    return new TcpStoreServer(socket, liveness, state);
  }

  public int port() {
    return serverSocket.getLocalPort();
  }

  /** The first rank that disconnected without a goodbye, as a message; empty while none has. */
  public Optional<String> failure() {
    return Optional.ofNullable(state.failure());
  }

  /** The ranks whose heartbeats arrive, so whose silence would fail the job. */
  Set<Integer> beatingRanks() {
    return state.beatingRanks();
  }

  /**
   * Waits (at most {@code timeout}) until every rank has connected and left; a host calls this
   * before {@link #close()} so that ranks of other pods still reading their last answer are not cut
   * off. Returns false on timeout.
   */
  public boolean awaitAllRanksGone(Duration timeout) {
    try {
      return state.awaitAllGone(timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void acceptConnections() {
    while (!closed.get()) {
      Socket socket;
      try {
        socket = serverSocket.accept();
      } catch (IOException e) {
        return; // closed
      }
      connections.add(socket);
      Thread.ofVirtual().name("rendezvous-connection").start(() -> serve(socket));
    }
  }

  private void checkHeartbeats(Liveness liveness) {
    while (!closed.get()) {
      LockSupport.parkNanos(liveness.beatInterval().toNanos());
      state.checkHeartbeats(System.nanoTime(), liveness);
    }
  }

  /** One connection: reads requests in order; blocking ones answer from their own thread. */
  private void serve(Socket socket) {
    Connection connection = new Connection(socket);
    try (socket) {
      socket.setTcpNoDelay(true);
      InputStream in = new BufferedInputStream(socket.getInputStream());
      connection.out = new BufferedOutputStream(socket.getOutputStream());
      while (!closed.get()) {
        DataInputStream request = StoreProtocol.readFrame(in);
        if (request == null) {
          break;
        }
        try {
          handle(connection, request);
        } catch (RuntimeException e) {
          // A frame the store could not serve ends its connection, with a reason for the
          // sender; it must not end the store, which every rank of the job relies on.
          connection.replyQuietly(badRequest(e));
          break;
        }
      }
    } catch (IOException e) {
      // The peer went away mid-frame or the store is closing: treated like a closed connection.
    } finally {
      connections.remove(socket);
      if (connection.beatingRank >= 0) {
        state.heartbeatsEnded(connection.beatingRank);
      }
      if (connection.rank >= 0 && !connection.saidGoodbye) {
        state.disconnected(connection.rank);
      }
    }
  }

  private void handle(Connection connection, DataInputStream request) throws IOException {
    byte op = request.readByte();
    switch (op) {
      case StoreProtocol.HELLO -> {
        int rank = request.readInt();
        int world = request.readInt();
        // a hello that ends after the world is of a rank that names no run
        String run = request.available() > 0 ? request.readUTF() : RunId.NONE.value();
        String error =
            RunId.isValid(run)
                ? state.hello(rank, world, new RunId(run))
                : "rank "
                    + rank
                    + " names a run that is no run id (at most "
                    + RunId.MAX_LENGTH
                    + " letters, digits and . _ : / -)";
        if (error == null) {
          connection.rank = rank;
          connection.reply(StoreState.Outcome.ok(new byte[0]));
        } else {
          connection.reply(StoreState.Outcome.failed("rendezvous: " + error));
        }
      }
      case StoreProtocol.SET ->
          connection.reply(state.set(request.readUTF(), StoreProtocol.readBytes(request)));
      case StoreProtocol.ADD -> connection.reply(state.add(request.readUTF(), request.readLong()));
      case StoreProtocol.GET -> {
        String key = request.readUTF();
        Duration timeout = waitOf(request.readLong());
        answerLater(connection, () -> state.get(key, timeout));
      }
      case StoreProtocol.BARRIER -> {
        String name = request.readUTF();
        int round = request.readInt();
        int participants = request.readInt();
        int rank = request.readInt();
        Duration timeout = waitOf(request.readLong());
        answerLater(connection, () -> state.barrier(name, round, participants, rank, timeout));
      }
      case StoreProtocol.WATCH ->
          answerLater(
              connection,
              () -> {
                String failure = state.awaitFailure();
                return failure == null
                    ? StoreState.Outcome.failed("rendezvous: the store closed")
                    : StoreState.Outcome.peerFailed(failure);
              });
      case StoreProtocol.HEARTBEAT -> {
        int rank = request.readInt();
        connection.beatingRank = rank;
        state.heartbeat(rank, System.nanoTime());
        connection.reply(new StoreState.Outcome(StoreProtocol.BEAT, new byte[0], ""));
      }
      case StoreProtocol.FAIL -> {
        String reason = request.readUTF();
        if (connection.rank >= 0) {
          state.failed(connection.rank, reason);
        }
        connection.reply(StoreState.Outcome.ok(new byte[0]));
      }
      case StoreProtocol.BYE -> {
        connection.saidGoodbye = true;
        if (connection.rank >= 0) {
          state.left(connection.rank);
        }
        connection.reply(StoreState.Outcome.ok(new byte[0]));
      }
      default -> throw new IOException("unknown opcode " + op);
    }
  }

  /** A request's wait in milliseconds, within what the store waits at most. */
  private static Duration waitOf(long millis) {
    return StoreState.bounded(Duration.ofMillis(Math.max(0, millis)));
  }

  /**
   * The most waits one connection may have open: a rank's client asks one thing at a time (a few
   * threads at most); a connection with thousands of 30-day waits is not a rank.
   */
  static final int MAX_WAITS_PER_CONNECTION = 1024;

  /** A wait runs on its own virtual thread so that the reader keeps watching for end of stream. */
  private static void answerLater(Connection connection, BlockingAnswer answer) throws IOException {
    if (connection.openWaits.incrementAndGet() > MAX_WAITS_PER_CONNECTION) {
      connection.openWaits.decrementAndGet();
      connection.reply(
          StoreState.Outcome.failed(
              "rendezvous: more than " + MAX_WAITS_PER_CONNECTION + " waits on one connection"));
      return;
    }
    Thread.ofVirtual()
        .name("rendezvous-wait")
        .start(
            () -> {
              try {
                connection.reply(answer.compute());
              } catch (InterruptedException | IOException e) {
                // The connection or the store closed while waiting; nobody is left to answer.
              } catch (RuntimeException e) {
                // a request the store could not serve: said to its sender, not to the host's log
                connection.replyQuietly(badRequest(e));
              } finally {
                connection.openWaits.decrementAndGet();
              }
            });
  }

  private static StoreState.Outcome badRequest(RuntimeException e) {
    return StoreState.Outcome.failed(
        "rendezvous: the store could not serve a request (" + e.getClass().getSimpleName() + ")");
  }

  @FunctionalInterface
  private interface BlockingAnswer {
    StoreState.Outcome compute() throws InterruptedException;
  }

  /** Stops listening, fails every open wait and closes every connection. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    state.close();
    try {
      serverSocket.close();
    } catch (IOException ignored) {
      // Closing anyway.
    }
    for (Socket socket : connections) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // Closing anyway.
      }
    }
    LockSupport.unpark(heartbeatChecker);
    try {
      acceptor.join(Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One client connection: which rank it belongs to, and its serialized reply channel. */
  private static final class Connection {
    private final Socket socket;
    private final ReentrantLock writeLock = new ReentrantLock();
    private OutputStream out;
    private volatile int rank = -1;

    /** The rank whose heartbeats this (watch) connection carries; -1 for none. */
    private volatile int beatingRank = -1;

    private volatile boolean saidGoodbye;

    private final AtomicInteger openWaits = new AtomicInteger();

    Connection(Socket socket) {
      this.socket = socket;
    }

    /** Replies if the connection still takes it; a closing connection takes nothing. */
    void replyQuietly(StoreState.Outcome outcome) {
      try {
        if (out != null) {
          reply(outcome);
        }
      } catch (IOException | RuntimeException e) {
        // the sender is gone or its stream broken: there is no one to tell
      }
    }

    void reply(StoreState.Outcome outcome) throws IOException {
      writeLock.lock();
      try {
        if (socket.isClosed()) {
          throw new IOException("closed");
        }
        new StoreProtocol.Frame(outcome.status())
            .writeBytes(outcome.value())
            .writeString(outcome.message())
            .sendTo(out);
      } finally {
        writeLock.unlock();
      }
    }
  }
}
