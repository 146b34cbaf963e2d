package dev.gpucomm.runtime.rendezvous;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay in front of the store that can be cut as a pulled cable is: afterwards nothing passes
 * in either direction, yet no connection closes or resets, so neither side learns of it but by
 * silence.
 */
final class CuttableLink implements AutoCloseable {
  private final ServerSocket listener;
  private final InetSocketAddress target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean cut;

  CuttableLink(int targetPort) throws IOException {
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
    Thread.ofVirtual().start(this::accept);
  }

  RendezvousAddress address() {
    return new RendezvousAddress("127.0.0.1", listener.getLocalPort());
  }

  void cut() {
    cut = true;
  }

  private void accept() {
    try {
      while (true) {
        Socket client = listener.accept();
        Socket store = new Socket(target.getAddress(), target.getPort());
        sockets.add(client);
        sockets.add(store);
        Thread.ofVirtual().start(() -> relay(client, store));
        Thread.ofVirtual().start(() -> relay(store, client));
      }
    } catch (IOException e) {
      // closed
    }
  }

  /**
   * Copies until cut; afterwards reads and drops, so the sender's writes still succeed. Until cut,
   * a side that closes closes the other too, as the end of a connection crosses a working link.
   */
  private void relay(Socket from, Socket to) {
    byte[] buffer = new byte[8192];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int count;
      while ((count = in.read(buffer)) >= 0) {
        if (!cut) {
          out.write(buffer, 0, count);
          out.flush();
        }
      }
    } catch (IOException e) {
      // one side closed: the relay of that pair ends
    }
    if (!cut) {
      try {
        to.close();
      } catch (IOException e) {
        // already closed
      }
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    for (Socket socket : sockets) {
      socket.close();
    }
  }
}
