package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PeerMemoryLayoutTest {
  private static final long MAX = 64L << 20;
  private static final long LAMPORT = 1L << 20;

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 6, 8})
  void regionsFollowEachOtherAlignedAndWithoutOverlap(int world) {
    PeerMemoryLayout layout = PeerMemoryLayout.of(world, MAX, LAMPORT, LAMPORT);

    long[][] regions = {
      {layout.oneshotFlagsOffset(), PeerMemoryLayout.FLAG_SET_BYTES},
      {layout.twoshotFlagsOffset(), 3 * PeerMemoryLayout.FLAG_SET_BYTES},
      {layout.streamCreditsOffset(), PeerMemoryLayout.FLAG_SET_BYTES},
      {layout.checkOffset(), PeerMemoryLayout.CHECK_BYTES},
      {layout.hostWordsOffset(), PeerMemoryLayout.HOST_WORDS_BYTES},
      {layout.oneshotRecvOffset(), 2 * world * layout.oneshotRankStride()},
      {layout.twoshotRecvOffset(), 2 * world * layout.twoshotRankStride()},
      {layout.scratchOffset(), layout.twoshotRankStride()},
      {layout.lamportOffset(), layout.lamportBytes()},
    };
    for (int i = 0; i < regions.length; i++) {
      long end = regions[i][0] + regions[i][1];
      long nextStart = i + 1 < regions.length ? regions[i + 1][0] : layout.totalBytes();
      assertThat(regions[i][0] % 256).as("region %d aligned", i).isZero();
      assertThat(end).as("region %d ends before the next starts", i).isLessThanOrEqualTo(nextStart);
    }
    assertThat(layout.flagBytes()).isEqualTo(layout.oneshotRecvOffset());
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5, 7, 8})
  void theLargestTwoShotSliceFitsItsReceiveAndScratchAreas(int world) {
    PeerMemoryLayout layout = PeerMemoryLayout.of(world, MAX, LAMPORT, LAMPORT);
    long vectors = MAX / 16;
    long part = vectors / world;
    long lastSliceBytes = 16 * (vectors - (world - 1) * part);

    assertThat(lastSliceBytes).isLessThanOrEqualTo(layout.twoshotRankStride());
    assertThat(layout.maxBytes()).isGreaterThanOrEqualTo(MAX);
    assertThat(layout.lamportRankStride()).isGreaterThanOrEqualTo(LAMPORT);
    assertThat(layout.lamport2MaxBytes()).isGreaterThanOrEqualTo(LAMPORT);
    long lamport2Vectors = layout.lamport2MaxBytes() / 16;
    long longestLamport2Slice = lamport2Vectors - (world - 1) * (lamport2Vectors / world);
    assertThat(16 * longestLamport2Slice).isLessThanOrEqualTo(layout.lamport2RankStride());
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 9})
  void refusesWorldsTheFlagAreasCannotHold(int world) {
    assertThatThrownBy(() -> PeerMemoryLayout.of(world, MAX, LAMPORT, LAMPORT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1..8 ranks");
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 4})
  void theKernelStructListsTheOffsetsInTheOrderOfAllreduceCu(int world) {
    PeerMemoryLayout layout = PeerMemoryLayout.of(world, MAX, LAMPORT, LAMPORT);

    assertThat(layout.kernelStruct())
        .containsExactly(
            layout.oneshotFlagsOffset(),
            layout.twoshotFlagsOffset(),
            layout.checkOffset(),
            layout.oneshotRecvOffset(),
            layout.oneshotRankStride(),
            layout.twoshotRecvOffset(),
            layout.twoshotRankStride(),
            layout.scratchOffset(),
            layout.lamportOffset(),
            layout.lamportRankStride(),
            layout.lamport2Offset(),
            layout.lamport2RankStride(),
            layout.hostWordsOffset(),
            layout.streamCreditsOffset());
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 4})
  void theHostPathWordsStartAtZeroAndItsDataLandsInTheRanksOwnOneshotSlots(int world) {
    PeerMemoryLayout layout = PeerMemoryLayout.of(world, MAX, LAMPORT, LAMPORT);

    long doneWord = layout.hostReadyOffset(PeerMemoryLayout.HOST_CHUNKS_MAX - 1) + Integer.BYTES;
    int last = PeerMemoryLayout.MAX_RANKS - 1;
    assertThat(layout.hostReadyOffset(0)).isEqualTo(layout.hostWordsOffset());
    assertThat(layout.hostStagedOffset(0, 0)).isEqualTo(doneWord + Integer.BYTES);
    assertThat(layout.hostInUseOffset(0))
        .isEqualTo(
            layout.hostStagedOffset(last, PeerMemoryLayout.HOST_CHUNKS_MAX - 1) + Integer.BYTES);
    assertThat(layout.hostInUseOffset(last) + Integer.BYTES)
        .as("every word in the part that starts at zero")
        .isLessThanOrEqualTo(layout.flagBytes());
    for (int rank = 0; rank < world; rank++) {
      assertThat(layout.hostReceiveOffset(rank))
          .as("parity 0, own index")
          .isEqualTo(layout.oneshotRecvOffset() + rank * layout.oneshotRankStride());
      assertThat(layout.hostPartsOffset(rank))
          .as("parity 1, own index")
          .isEqualTo(layout.oneshotRecvOffset() + (world + rank) * layout.oneshotRankStride());
    }
  }

  @Test
  void theTwoshotHasThreeFlagSetsBeforeTheCheckWords() {
    PeerMemoryLayout layout = PeerMemoryLayout.of(4, MAX, LAMPORT, LAMPORT);

    assertThat(layout.checkOffset() - layout.twoshotFlagsOffset())
        .isGreaterThanOrEqualTo(3 * PeerMemoryLayout.FLAG_SET_BYTES);
  }

  @Test
  void theStreamedOneshotsCreditsStartAtZeroWithTheFlags() {
    PeerMemoryLayout layout = PeerMemoryLayout.of(2, MAX, LAMPORT, LAMPORT);

    assertThat(layout.streamCreditsOffset() + PeerMemoryLayout.FLAG_SET_BYTES)
        .isLessThanOrEqualTo(layout.flagBytes());
  }
}
