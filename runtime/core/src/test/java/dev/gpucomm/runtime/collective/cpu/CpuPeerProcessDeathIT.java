package dev.gpucomm.runtime.collective.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cpu.CpuDevice;
import dev.gpucomm.runtime.launch.JavaCommand;
import dev.gpucomm.runtime.rendezvous.RendezvousAddress;
import dev.gpucomm.runtime.rendezvous.TcpStoreClient;
import dev.gpucomm.runtime.rendezvous.TcpStoreServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Ranks of different pods as separate processes: a peer process that dies mid-call. */
@Timeout(120)
class CpuPeerProcessDeathIT {
  private static final JavaCommand STAND_IN =
      JavaCommand.ofCurrentJvm().withMainClass(StandInPodRank.class.getName());
  private static final Duration WAIT_TIMEOUT = Duration.ofSeconds(60);

  @Test
  void whenTheProcessOfARankInAnotherPodDiesMidCallThenTheWaitingRankFailsNamingItAtOnce()
      throws Exception {
    try (TcpStoreServer server = TcpStoreServer.start(InetAddress.getLoopbackAddress(), 0)) {
      Process peer =
          new ProcessBuilder(
                  STAND_IN.command(
                      List.of("127.0.0.1", String.valueOf(server.port()), "1", "2", "1")))
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      try (TcpStoreClient store =
              TcpStoreClient.connect(
                  new RendezvousAddress("127.0.0.1", server.port()), 0, 2, Duration.ofSeconds(30));
          CpuDevice device =
              new CpuBackend(CpuAllReduceTest.CONFIG.withWaitTimeout(WAIT_TIMEOUT)).open(0)) {
        CompletableFuture<CpuCommunicator> building =
            CompletableFuture.supplyAsync(
                () ->
                    CpuCommunicator.create(
                        device,
                        store,
                        new RankTopology(0, 2, 0, 1),
                        InetAddress.getLoopbackAddress()));
        BufferedReader output =
            new BufferedReader(
                new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
        assertThat(output.readLine()).isEqualTo("ready");
        try (CpuCommunicator communicator = building.get(60, TimeUnit.SECONDS);
            DeviceBuffer buffer = RankData.upload(device, DType.FP32, 4096, 0)) {
          Stream stream = device.defaultStream();
          // The peer never takes part: rank 0 waits in the call until the peer's process is gone.
          communicator.allReduce(Algorithm.RING, buffer, buffer, 4096, DType.FP32, stream);
          long killedAt = System.nanoTime();
          peer.destroyForcibly().waitFor();
          Throwable failure = catchThrowable(stream::synchronize);
          Duration noticedAfter = Duration.ofNanos(System.nanoTime() - killedAt);

          assertThat(failure)
              .hasMessageContaining("ring all-reduce on rank 0 gave up: rank 1 (pod 1)");
          assertThat(noticedAfter).isLessThan(WAIT_TIMEOUT.dividedBy(4));
        }
      } finally {
        peer.destroyForcibly();
      }
    }
  }
}
