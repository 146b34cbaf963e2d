package dev.gpucomm.runtime.rendezvous;

/** A running watch for dead peers ({@link TcpStoreClient#watchPeers}); closing stops it. */
public interface PeerWatch extends AutoCloseable {
  @Override
  void close();
}
