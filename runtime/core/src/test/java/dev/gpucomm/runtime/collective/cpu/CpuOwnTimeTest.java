package dev.gpucomm.runtime.collective.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The CPU communicator's own time: what each rank's collectives spent outside waits for peers. */
class CpuOwnTimeTest {
  private static final int COUNT = 1024;

  /**
   * Long against what a rank thread held off the CPU may count as its own (the build runs other
   * modules' tests beside these): the own time must stay under a quarter of it.
   */
  private static final Duration LATE_BY = Duration.ofSeconds(1);

  /** One rank's call, as it saw it. */
  private record Call(Duration took, Duration own) {}

  @Test
  void ranksThatWaitedForALateRankCountTheWaitAsTheirPeersNotTheirOwn() {
    try (CpuWorld world = CpuWorld.start(3, CpuAllReduceTest.CONFIG)) {
      List<Call> calls =
          world.onEveryRank(
              rank -> {
                DeviceBuffer input =
                    RankData.upload(
                        rank.device(), DType.FP32, COUNT, RankData.seed(0, rank.rank()));
                DeviceBuffer output = rank.device().allocate(COUNT * 4L);
                Stream stream = rank.device().defaultStream();
                if (rank.rank() == 1) {
                  sleep(LATE_BY); // rank 1 comes late: ranks 0 and 2 wait for it
                }
                long ownBefore = rank.communicator().ownNanos();
                long started = System.nanoTime();
                rank.communicator()
                    .allReduce(Algorithm.RING, input, output, COUNT, DType.FP32, stream);
                stream.synchronize();
                return new Call(
                    Duration.ofNanos(System.nanoTime() - started),
                    Duration.ofNanos(rank.communicator().ownNanos() - ownBefore));
              });

      for (int rank : new int[] {0, 2}) {
        Call call = calls.get(rank);
        assertThat(call.took()).as("rank %d's call", rank).isGreaterThan(LATE_BY.dividedBy(2));
        assertThat(call.own()).as("rank %d's own time", rank).isLessThan(LATE_BY.dividedBy(4));
      }
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
