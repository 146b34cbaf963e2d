package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CudaCommunicatorSettingsTest {
  @Test
  void withoutVariablesTheDefaultsApply() {
    assertThat(CudaCommunicatorSettings.from(Map.of()))
        .isEqualTo(CudaCommunicatorSettings.defaults());
  }

  @Test
  void variablesOverrideSizesBlocksAndTimeout() {
    CudaCommunicatorSettings settings =
        CudaCommunicatorSettings.from(
            Map.of(
                "GPUCOMM_PEER_BUFFER_BYTES", "33554432",
                "GPUCOMM_LAMPORT_MAX_BYTES", "0",
                "GPUCOMM_TWOSHOT_BLOCKS", "48",
                "GPUCOMM_RENDEZVOUS_TIMEOUT_SECONDS", "30",
                "GPUCOMM_PEER_MEMORY", "off",
                "GPUCOMM_PDL", "off",
                "GPUCOMM_NCCL", "off"));

    assertThat(settings.enabled()).isFalse();
    assertThat(settings.ncclEnabled()).isFalse();
    assertThat(settings.programmaticLaunch()).isFalse();
    assertThat(CudaCommunicatorSettings.defaults().programmaticLaunch()).isTrue();
    assertThat(settings.maxBytes()).isEqualTo(32L << 20);
    assertThat(settings.lamportMaxBytes()).isZero();
    assertThat(settings.twoShotBlocks()).isEqualTo(48);
    assertThat(settings.rendezvousTimeout()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void theFusedKernelsSpreadTheirWorkUnlessAskedForTheFirstOnes() {
    assertThat(CudaCommunicatorSettings.defaults().fusedSpreadKernels()).isTrue();
    assertThat(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_SPREAD", "off"))
                .fusedSpreadKernels())
        .isFalse();
  }

  @Test
  void oneShotCallsStreamFromAGibibyteUnlessToldOtherwise() {
    assertThat(CudaCommunicatorSettings.defaults().oneShotStreamMinBytes()).isEqualTo(1L << 30);
    assertThat(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_ONESHOT_STREAM_MIN_BYTES", "0"))
                .oneShotStreamMinBytes())
        .isZero();
    assertThatThrownBy(
            () -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_ONESHOT_STREAM_MIN_BYTES", "-1")))
        .hasMessage("GPUCOMM_ONESHOT_STREAM_MIN_BYTES must not be negative, got -1");
  }

  @Test
  void theFusedOneShotSplitsRowsOverClustersOnlyWhenTurnedOn() {
    assertThat(CudaCommunicatorSettings.defaults().fusedClusterKernel()).isFalse();
    assertThat(CudaCommunicatorSettings.from(Map.of()).fusedClusterKernel()).isFalse();
    CudaCommunicatorSettings on =
        CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_CLUSTER", "on"));
    assertThat(on.fusedClusterKernel()).isTrue();
    assertThat(on.fusedSpreadKernels()).isTrue();
    assertThat(on.withMaxBlocks(16).fusedClusterKernel()).isTrue();
  }

  @Test
  void theFusedTwoShotWidensItsGridUnlessTurnedOff() {
    assertThat(CudaCommunicatorSettings.defaults().fusedWideGrid()).isTrue();
    assertThat(CudaCommunicatorSettings.from(Map.of()).fusedWideGrid()).isTrue();
    assertThat(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_WIDE_GRID", "off")).fusedWideGrid())
        .isFalse();
    assertThatThrownBy(
            () -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_WIDE_GRID", "yes")))
        .hasMessage("GPUCOMM_FUSED_WIDE_GRID must be on or off, got 'yes'");
  }

  @Test
  void theFusedTwoShotTakesItsOwnRowsUnlessTurnedOff() {
    assertThat(CudaCommunicatorSettings.defaults().fusedOwnRows()).isTrue();
    assertThat(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_OWN_ROWS", "off")).fusedOwnRows())
        .isFalse();
    assertThat(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_OWN_ROWS", "off"))
                .withMaxBlocks(16)
                .fusedOwnRows())
        .isFalse();
    assertThatThrownBy(() -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_OWN_ROWS", "1")))
        .hasMessage("GPUCOMM_FUSED_OWN_ROWS must be on or off, got '1'");
  }

  @Test
  void theFusedOneShotsRowCopiesAreAutomaticOrACountFromOneToEight() {
    assertThat(CudaCommunicatorSettings.defaults().fusedRowCopies())
        .isEqualTo(FusedRowCopies.AUTOMATIC);
    assertThat(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_ROW_COPIES", "auto"))
                .fusedRowCopies())
        .isEqualTo(FusedRowCopies.AUTOMATIC);
    assertThat(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_ROW_COPIES", " 1 "))
                .withMaxBlocks(16)
                .fusedRowCopies())
        .isEqualTo(1);
    assertThat(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_ROW_COPIES", "8")).fusedRowCopies())
        .isEqualTo(8);
    for (String bad : new String[] {"0", "9", "-1", "two", "off", ""}) {
      assertThatThrownBy(
              () -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_ROW_COPIES", bad)))
          .hasMessage("GPUCOMM_FUSED_ROW_COPIES must be auto or 1 to 8, got '" + bad + "'");
    }
  }

  @Test
  void theKernelShapeFollowsWhatWasMeasuredForTheWorldSize() {
    CudaCommunicatorSettings defaults = CudaCommunicatorSettings.defaults();

    KernelShape pair = defaults.kernelShape(2);
    KernelShape four = defaults.kernelShape(4);

    assertThat(pair.lamportMaxBytes()).isEqualTo(4L << 20);
    assertThat(four.lamportMaxBytes()).isEqualTo(2L << 20);
    assertThat(pair.lamport2MaxBytes()).isEqualTo(16L << 20);
    assertThat(four.lamport2MaxBytes()).isEqualTo(16L << 20);
    assertThat(pair.twoShotChunks()).isEqualTo(8);
    assertThat(four.twoShotChunks()).isEqualTo(2);
    assertThat(four.oneShotChunks()).isEqualTo(16);
    assertThat(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_LAMPORT_MAX_BYTES", "1048576"))
                .kernelShape(4)
                .lamportMaxBytes())
        .isEqualTo(1L << 20);
  }

  @Test
  void theWarpSpecializedKernelsTakeLargeCallsWhereTheyWereMeasuredFaster() {
    CudaCommunicatorSettings defaults = CudaCommunicatorSettings.defaults();

    KernelShape pair = defaults.kernelShape(2);
    KernelShape four = defaults.kernelShape(4);
    KernelShape eight = defaults.kernelShape(8);

    assertThat(pair.oneShotWsMinBytes()).isEqualTo(8L << 20);
    assertThat(pair.twoShotWsMinBytes()).isEqualTo(64L << 20);
    assertThat(four.oneShotWsMinBytes()).isEqualTo(CudaCommunicatorSettings.NEVER);
    assertThat(four.twoShotWsMinBytes()).isEqualTo(32L << 20);
    assertThat(eight.oneShotWsMinBytes()).isEqualTo(CudaCommunicatorSettings.NEVER);
    assertThat(eight.twoShotWsMinBytes()).isEqualTo(CudaCommunicatorSettings.NEVER);
  }

  @Test
  void warpSpecializedSettingsFromTheEnvironmentApplyOnEveryWorldSize() {
    CudaCommunicatorSettings settings =
        CudaCommunicatorSettings.from(
            Map.of(
                "GPUCOMM_ONESHOT_WS_MIN_BYTES", "0",
                "GPUCOMM_TWOSHOT_WS_MIN_BYTES", "16777216"));

    KernelShape four = settings.kernelShape(4);

    assertThat(four.oneShotWsMinBytes()).isZero();
    assertThat(four.twoShotWsMinBytes()).isEqualTo(16L << 20);
  }

  @Test
  void theCopyEnginePieceSizeDefaultsToAQuarterSlotAndTakesWhatTheUserAsks() {
    assertThat(CudaCommunicatorSettings.from(Map.of()).copyEnginePieceBytes()).isEqualTo(16L << 20);
    assertThat(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_COPYENGINE_PIECE_BYTES", "2097152"))
                .copyEnginePieceBytes())
        .isEqualTo(2L << 20);
  }

  @Test
  void aCopyEnginePieceLargerThanASlotIsRefusedByName() {
    assertThatThrownBy(
            () ->
                CudaCommunicatorSettings.from(
                    Map.of("GPUCOMM_COPYENGINE_PIECE_BYTES", String.valueOf(64L << 20))))
        .hasMessageContaining("GPUCOMM_COPYENGINE_PIECE_BYTES");
  }

  @Test
  void theLlGatherKernelsTakeCallsUpTo512KibUnlessThePeerBufferIsSmallerOrTheUserAsks() {
    assertThat(CudaCommunicatorSettings.from(Map.of()).gatherLlMaxBytes()).isEqualTo(512L << 10);
    assertThat(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_PEER_BUFFER_BYTES", "65536"))
                .gatherLlMaxBytes())
        .isEqualTo(65536);
    assertThat(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_GATHER_LL_MAX_BYTES", "1048576"))
                .gatherLlMaxBytes())
        .isEqualTo(1L << 20);
    assertThat(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_GATHER_LL_MAX_BYTES", "0"))
                .gatherLlMaxBytes())
        .isZero();
  }

  @Test
  void aCountBeyondAnIntIsRefusedNotWrappedAround() {
    // 2^32 + 1 narrowed to an int is 1: a one-block grid nobody asked for
    assertThatThrownBy(
            () -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_ONESHOT_BLOCKS", "4294967297")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "GPUCOMM_ONESHOT_BLOCKS must be within -2147483648..2147483647, got 4294967297");
  }

  @Test
  void aRendezvousTimeoutOutsideOneSecondToThirtyDaysIsRefused() {
    for (String seconds : new String[] {"0", "-1", "9223372036854775807"}) {
      assertThatThrownBy(
              () ->
                  CudaCommunicatorSettings.from(
                      Map.of("GPUCOMM_RENDEZVOUS_TIMEOUT_SECONDS", seconds)))
          .as(seconds)
          .hasMessage(
              "GPUCOMM_RENDEZVOUS_TIMEOUT_SECONDS must be from 1 to 2592000 (30 days), got "
                  + seconds);
    }
  }

  @Test
  void theGatherKernelsRun128BlocksUnlessTheUserAsksAndNeverMoreThan160() {
    assertThat(CudaCommunicatorSettings.from(Map.of()).gatherBlocks()).isEqualTo(128);
    assertThat(GatherScatter.blocks(CudaCommunicatorSettings.from(Map.of()), 114)).isEqualTo(114);
    assertThat(CudaCommunicatorSettings.from(Map.of("GPUCOMM_GATHER_BLOCKS", "32")).gatherBlocks())
        .isEqualTo(32);
    assertThatThrownBy(() -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_GATHER_BLOCKS", "161")))
        .hasMessage("GPUCOMM_GATHER_BLOCKS must be between 1 and 160, got 161");
  }

  @Test
  void theSinglePassGatherLimitIsEightMibUnlessTheUserAsksLessAndNamedWhenWrong() {
    assertThat(CudaCommunicatorSettings.from(Map.of()).gatherSinglePassMaxBytes())
        .isEqualTo(8L << 20);
    assertThat(
            CudaCommunicatorSettings.from(
                    Map.of("GPUCOMM_GATHER_SINGLE_PASS_MAX_BYTES", String.valueOf(1L << 20)))
                .gatherSinglePassMaxBytes())
        .isEqualTo(1L << 20);
    assertThatThrownBy(
            () ->
                CudaCommunicatorSettings.from(
                    Map.of("GPUCOMM_GATHER_SINGLE_PASS_MAX_BYTES", String.valueOf(16L << 20))))
        .hasMessage(
            "GPUCOMM_GATHER_SINGLE_PASS_MAX_BYTES must be a multiple of 16 between 0 and 8388608,"
                + " got 16777216");
  }

  @Test
  void thePipelinedGatherOverlapsItsCopyOutUnlessTurnedOff() {
    assertThat(CudaCommunicatorSettings.from(Map.of()).gatherOverlap()).isTrue();
    assertThat(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_GATHER_OVERLAP", "off")).gatherOverlap())
        .isFalse();
    assertThatThrownBy(() -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_GATHER_OVERLAP", "yes")))
        .hasMessage("GPUCOMM_GATHER_OVERLAP must be on or off, got 'yes'");
  }

  @Test
  void eachCollectivesRoundIsSettableWithinHalfASlotAndNamedWhenWrong() {
    CudaCommunicatorSettings defaults = CudaCommunicatorSettings.from(Map.of());
    assertThat(defaults.allGatherRoundBytes()).isEqualTo(16L << 20);
    assertThat(defaults.reduceScatterRoundBytes()).isEqualTo(8L << 20);
    CudaCommunicatorSettings set =
        CudaCommunicatorSettings.from(
            Map.of(
                "GPUCOMM_ALLGATHER_ROUND_BYTES", String.valueOf(4L << 20),
                "GPUCOMM_REDUCESCATTER_ROUND_BYTES", String.valueOf(16L << 20)));
    assertThat(set.allGatherRoundBytes()).isEqualTo(4L << 20);
    assertThat(set.reduceScatterRoundBytes()).isEqualTo(16L << 20);
    for (String name :
        List.of("GPUCOMM_ALLGATHER_ROUND_BYTES", "GPUCOMM_REDUCESCATTER_ROUND_BYTES")) {
      for (String wrong :
          List.of(String.valueOf(32L << 20), "65520", String.valueOf((1L << 20) + 8))) {
        assertThatThrownBy(() -> CudaCommunicatorSettings.from(Map.of(name, wrong)))
            .hasMessage(
                name
                    + " must be a multiple of 16 between 65536 and 16777216 (half a gather slot),"
                    + " got "
                    + wrong);
      }
    }
  }

  @Test
  void anLlGatherLimitAboveOneMibOrNotInWholeVectorsIsRefusedByName() {
    assertThatThrownBy(
            () ->
                CudaCommunicatorSettings.from(
                    Map.of("GPUCOMM_GATHER_LL_MAX_BYTES", String.valueOf(2L << 20))))
        .hasMessage(
            "GPUCOMM_GATHER_LL_MAX_BYTES must be a multiple of 16 between 0 and 1048576"
                + " (1 MiB and the peer buffer size), got 2097152");
    assertThatThrownBy(
            () -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_GATHER_LL_MAX_BYTES", "1000")))
        .hasMessageContaining("GPUCOMM_GATHER_LL_MAX_BYTES");
  }

  @Test
  void aNegativeWarpSpecializedLimitIsNamed() {
    assertThatThrownBy(
            () -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_ONESHOT_WS_MIN_BYTES", "-1")))
        .hasMessage("GPUCOMM_ONESHOT_WS_MIN_BYTES must not be negative, got -1");
  }

  @Test
  void aSmallPeerBufferCapsTheLamportDefaultsButNotWhatTheUserAskedFor() {
    CudaCommunicatorSettings small =
        CudaCommunicatorSettings.from(Map.of("GPUCOMM_PEER_BUFFER_BYTES", "2097152"));

    assertThat(small.lamportMaxBytes()).isEqualTo(2L << 20);
    assertThat(small.lamport2MaxBytes()).isEqualTo(2L << 20);
    assertThatThrownBy(
            () ->
                CudaCommunicatorSettings.from(
                    Map.of(
                        "GPUCOMM_PEER_BUFFER_BYTES", "2097152",
                        "GPUCOMM_LAMPORT2_MAX_BYTES", "4194304")))
        .hasMessageStartingWith("GPUCOMM_LAMPORT2_MAX_BYTES must be a multiple of 16 between 0");
  }

  @Test
  void badValuesAreNamedInOneLine() {
    assertThatThrownBy(
            () -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_ONESHOT_BLOCKS", "lots")))
        .hasMessage("GPUCOMM_ONESHOT_BLOCKS must be a whole number, got 'lots'");
    assertThatThrownBy(() -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_ONESHOT_BLOCKS", "161")))
        .hasMessage("GPUCOMM_ONESHOT_BLOCKS must be between 1 and 160, got 161");
    assertThatThrownBy(
            () -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_PEER_BUFFER_BYTES", "1000")))
        .hasMessageStartingWith("GPUCOMM_PEER_BUFFER_BYTES must be a positive multiple of 16");
    assertThatThrownBy(() -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_PEER_MEMORY", "maybe")))
        .hasMessage("GPUCOMM_PEER_MEMORY must be on or off, got 'maybe'");
  }
}
