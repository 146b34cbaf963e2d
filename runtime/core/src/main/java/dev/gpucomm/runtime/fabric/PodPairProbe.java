package dev.gpucomm.runtime.fabric;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Arrays;

/**
 * Bandwidth between two pods over TCP, as the pods' network carries it: one side sends a message
 * and the other acknowledges it with one byte, in turn, so that each side times its own direction.
 * One probe per pod; its server socket takes one partner at a time.
 */
public final class PodPairProbe implements AutoCloseable {
  private static final int CHUNK = 1 << 20;

  private final ServerSocket server;
  private final String address;
  private final byte[] chunk = new byte[CHUNK];

  /**
   * Listens on every interface; peers reach it at the address this host uses towards {@code via}.
   */
  public PodPairProbe(InetSocketAddress via) {
    try {
      server = new ServerSocket();
      server.setReceiveBufferSize(4 << 20);
      server.bind(new InetSocketAddress(0));
      address = localAddressTowards(via).getHostAddress() + ":" + server.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the fabric probe's socket", e);
    }
  }

  /** host:port for peers, through the store. */
  public String address() {
    return address;
  }

  /**
   * Connects to {@code peer} (host:port) and measures both directions; returns this side's GB/s.
   */
  public double measureAsClient(String peer, long bytes, int iterations, Duration timeout) {
    int colon = peer.lastIndexOf(':');
    try (Socket socket = new Socket()) {
      tune(socket, timeout);
      socket.connect(
          new InetSocketAddress(
              peer.substring(0, colon), Integer.parseInt(peer.substring(colon + 1))),
          (int) timeout.toMillis());
      return exchange(socket, true, bytes, iterations);
    } catch (IOException e) {
      throw new UncheckedIOException("fabric probe to " + peer + " failed", e);
    }
  }

  /** Takes the partner's connection and measures both directions; returns this side's GB/s. */
  public double measureAsServer(long bytes, int iterations, Duration timeout) {
    try {
      server.setSoTimeout((int) timeout.toMillis());
      try (Socket socket = server.accept()) {
        tune(socket, timeout);
        return exchange(socket, false, bytes, iterations);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("fabric probe: the partner did not connect", e);
    }
  }

  /**
   * One untimed round trip each way first (slow start, page faults), then {@code iterations} timed
   * ones; the client sends first in each.
   */
  private double exchange(Socket socket, boolean client, long bytes, int iterations)
      throws IOException {
    InputStream in = new DataInputStream(socket.getInputStream());
    OutputStream out = socket.getOutputStream();
    double[] seconds = new double[iterations];
    for (int i = -1; i < iterations; i++) {
      if (client) {
        double sent = sendTimed(in, out, bytes);
        receive(in, out, bytes);
        if (i >= 0) {
          seconds[i] = sent;
        }
      } else {
        receive(in, out, bytes);
        double sent = sendTimed(in, out, bytes);
        if (i >= 0) {
          seconds[i] = sent;
        }
      }
    }
    Arrays.sort(seconds);
    double median =
        iterations % 2 == 1
            ? seconds[iterations / 2]
            : (seconds[iterations / 2 - 1] + seconds[iterations / 2]) / 2;
    return bytes / median / 1e9;
  }

  private double sendTimed(InputStream in, OutputStream out, long bytes) throws IOException {
    long start = System.nanoTime();
    long left = bytes;
    while (left > 0) {
      int now = (int) Math.min(left, CHUNK);
      out.write(chunk, 0, now);
      left -= now;
    }
    out.flush();
    if (in.read() < 0) {
      throw new IOException("the partner closed the connection");
    }
    return (System.nanoTime() - start) / 1e9;
  }

  private void receive(InputStream in, OutputStream out, long bytes) throws IOException {
    long left = bytes;
    while (left > 0) {
      int got = in.read(chunk, 0, (int) Math.min(left, CHUNK));
      if (got < 0) {
        throw new IOException("the partner closed the connection");
      }
      left -= got;
    }
    out.write(1);
    out.flush();
  }

  private static void tune(Socket socket, Duration timeout) throws SocketException {
    socket.setTcpNoDelay(true);
    socket.setSendBufferSize(4 << 20);
    socket.setReceiveBufferSize(4 << 20);
    socket.setSoTimeout((int) timeout.toMillis());
  }

  /**
   * The address of the interface that routes to {@code via} (a connected UDP socket sends nothing).
   */
  private static InetAddress localAddressTowards(InetSocketAddress via) throws IOException {
    try (DatagramSocket probe = new DatagramSocket()) {
      probe.connect(via);
      InetAddress local = probe.getLocalAddress();
      return local.isAnyLocalAddress() ? InetAddress.getLoopbackAddress() : local;
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // nothing more to release
    }
  }
}
