package dev.gpucomm.e2e.sim;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A small TCP program that tests run inside pod network namespaces: {@code serve PORT} counts the
 * bytes of each connection, {@code send HOST PORT BYTES} sends that many and prints how long it
 * took, {@code connect HOST PORT TIMEOUT_MS} only connects. Exit code 1 when the network fails.
 */
public final class NetProbe {
  private static final int CHUNK = 64 * 1024;

  private NetProbe() {}

  public static void main(String[] args) throws IOException {
    try {
      switch (args[0]) {
        case "serve" -> serve(Integer.parseInt(args[1]));
        case "send" -> send(args[1], Integer.parseInt(args[2]), Long.parseLong(args[3]));
        case "connect" -> connect(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
        default -> throw new IllegalArgumentException("unknown mode " + args[0]);
      }
    } catch (IOException e) {
      System.out.println("failed: " + e);
      System.exit(1);
    }
  }

  private static void serve(int port) throws IOException {
    try (ServerSocket server = new ServerSocket()) {
      server.bind(new InetSocketAddress(port));
      System.out.println("listening on " + port);
      while (true) {
        try (Socket connection = server.accept();
            InputStream in = connection.getInputStream()) {
          byte[] buffer = new byte[CHUNK];
          long received = 0;
          for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
            received += n;
          }
          System.out.println("received " + received + " from " + connection.getInetAddress());
        }
      }
    }
  }

  private static void send(String host, int port, long bytes) throws IOException {
    long started = System.nanoTime();
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), 5000);
      OutputStream out = socket.getOutputStream();
      byte[] chunk = new byte[CHUNK];
      for (long left = bytes; left > 0; left -= chunk.length) {
        out.write(chunk, 0, (int) Math.min(chunk.length, left));
      }
      socket.shutdownOutput();
      // The peer's close (after it read everything) ends the transfer, not our last write.
      socket.getInputStream().read();
    }
    long millis = (System.nanoTime() - started) / 1_000_000;
    System.out.println("sent " + bytes + " in " + millis + " ms");
  }

  private static void connect(String host, int port, int timeoutMillis) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), timeoutMillis);
      System.out.println("connected to " + socket.getRemoteSocketAddress());
    }
  }
}
