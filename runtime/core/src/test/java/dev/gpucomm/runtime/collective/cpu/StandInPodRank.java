package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.cpu.CpuDevice;
import dev.gpucomm.runtime.rendezvous.RendezvousAddress;
import dev.gpucomm.runtime.rendezvous.TcpStoreClient;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;

/**
 * A rank process of another pod for tests: joins the rendezvous store at {@code host:port} as
 * {@code rank} of {@code worldSize} with {@code ranksPerPod}, builds its CPU communicator, prints
 * "ready" and then waits, taking part in no collective, until it is killed.
 */
public final class StandInPodRank {
  private StandInPodRank() {}

  public static void main(String[] args) throws IOException {
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    int rank = Integer.parseInt(args[2]);
    int worldSize = Integer.parseInt(args[3]);
    int ranksPerPod = Integer.parseInt(args[4]);
    try (TcpStoreClient store =
            TcpStoreClient.connect(
                new RendezvousAddress(host, port), rank, worldSize, Duration.ofSeconds(30));
        CpuDevice device = new CpuBackend(CpuAllReduceTest.CONFIG).open(rank % ranksPerPod);
        CpuCommunicator communicator =
            CpuCommunicator.create(
                device,
                store,
                new RankTopology(rank, worldSize, rank % ranksPerPod, ranksPerPod),
                InetAddress.getLoopbackAddress())) {
      System.out.println("ready");
      System.out.flush();
      // Blocks until the test kills this process (or closes its input).
      System.in.read();
    }
  }
}
