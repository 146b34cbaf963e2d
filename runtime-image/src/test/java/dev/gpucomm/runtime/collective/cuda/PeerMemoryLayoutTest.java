package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PeerMemoryLayoutTest {
  private static final long MAX = 64L << 20;
  private static final long LAMPORT = 1L << 20;

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 6, 8})
  void regionsFollowEachOtherAlignedAndWithoutOverlap(int world) {
    PeerMemoryLayout layout = PeerMemoryLayout.of(world, MAX, LAMPORT);

    long[] starts = {
      layout.signalOffset(),
      layout.checkOffset(),
      layout.recvOffset(),
      layout.scratchOffset(),
      layout.lamportOffset(),
      layout.totalBytes()
    };
    long[] ends = {
      layout.signalOffset() + PeerMemoryLayout.SIGNAL_BYTES,
      layout.checkOffset() + PeerMemoryLayout.CHECK_BYTES,
      layout.recvOffset() + 2 * layout.recvParityStride(),
      layout.scratchOffset() + layout.scratchBytes(),
      layout.lamportOffset() + layout.lamportBytes()
    };
    for (int i = 0; i < ends.length; i++) {
      assertThat(starts[i] % 256).as("region %d aligned", i).isZero();
      assertThat(ends[i])
          .as("region %d ends before the next starts", i)
          .isLessThanOrEqualTo(starts[i + 1]);
    }
    assertThat(layout.recvParityStride()).isEqualTo(world * layout.recvRankStride());
    assertThat(layout.lamportSlotStride()).isEqualTo(world * layout.lamportRankStride());
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5, 7, 8})
  void theLargestTwoShotSliceFitsTheScratchAndReceiveAreas(int world) {
    PeerMemoryLayout layout = PeerMemoryLayout.of(world, MAX, LAMPORT);
    long vectors = MAX / 16;
    long part = vectors / world;
    long lastSliceBytes = 16 * (vectors - (world - 1) * part);

    assertThat(lastSliceBytes).isLessThanOrEqualTo(layout.scratchBytes());
    assertThat(lastSliceBytes).isLessThanOrEqualTo(layout.recvRankStride());
    assertThat(layout.recvRankStride()).isGreaterThanOrEqualTo(MAX);
    assertThat(layout.lamportRankStride()).isGreaterThanOrEqualTo(LAMPORT);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 9})
  void refusesWorldsTheFlagAreaCannotHold(int world) {
    assertThatThrownBy(() -> PeerMemoryLayout.of(world, MAX, LAMPORT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1..8 ranks");
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 4})
  void theKernelStructListsTheOffsetsInTheOrderOfAllreduceCu(int world) {
    PeerMemoryLayout layout = PeerMemoryLayout.of(world, MAX, LAMPORT);

    assertThat(layout.kernelStruct())
        .containsExactly(
            layout.signalOffset(),
            layout.checkOffset(),
            layout.recvOffset(),
            layout.recvRankStride(),
            layout.recvParityStride(),
            layout.scratchOffset(),
            layout.lamportOffset(),
            layout.lamportRankStride(),
            layout.lamportSlotStride());
  }
}
