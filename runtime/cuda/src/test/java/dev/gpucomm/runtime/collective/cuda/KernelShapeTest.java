package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.runtime.collective.cuda.AllReduceKernels.Variant;
import org.junit.jupiter.api.Test;

class KernelShapeTest {
  private static final long MIB = 1L << 20;

  /** The defaults measured on two H200s. */
  private final KernelShape pair = CudaCommunicatorSettings.defaults().kernelShape(2);

  @Test
  void aOneShotCallRunsLamportThenTheFlagKernelThenTheWarpSpecializedOne() {
    assertThat(pair.oneShotKernel(16)).isEqualTo(Variant.LAMPORT);
    assertThat(pair.oneShotKernel(4 * MIB)).isEqualTo(Variant.LAMPORT);
    assertThat(pair.oneShotKernel(4 * MIB + 16)).isEqualTo(Variant.ONESHOT);
    assertThat(pair.oneShotKernel(8 * MIB - 16)).isEqualTo(Variant.ONESHOT);
    assertThat(pair.oneShotKernel(8 * MIB)).isEqualTo(Variant.ONESHOT_WS);
    assertThat(pair.oneShotKernel(64 * MIB)).isEqualTo(Variant.ONESHOT_WS);
  }

  @Test
  void aTwoShotCallRunsLamportUpTo16MiBAndTheWarpSpecializedKernelAt64() {
    assertThat(pair.twoShotKernel(16 * MIB)).isEqualTo(Variant.LAMPORT2);
    assertThat(pair.twoShotKernel(32 * MIB)).isEqualTo(Variant.TWOSHOT);
    assertThat(pair.twoShotKernel(64 * MIB)).isEqualTo(Variant.TWOSHOT_WS);
  }

  @Test
  void onFourRanksOnlyTwoShotCallsFrom32MiBRunAWarpSpecializedKernel() {
    KernelShape four = CudaCommunicatorSettings.defaults().kernelShape(4);

    assertThat(four.oneShotKernel(64 * MIB)).isEqualTo(Variant.ONESHOT);
    assertThat(four.twoShotKernel(16 * MIB)).isEqualTo(Variant.LAMPORT2);
    assertThat(four.twoShotKernel(32 * MIB - 16)).isEqualTo(Variant.TWOSHOT);
    assertThat(four.twoShotKernel(32 * MIB)).isEqualTo(Variant.TWOSHOT_WS);
    assertThat(four.twoShotKernel(64 * MIB)).isEqualTo(Variant.TWOSHOT_WS);
  }

  @Test
  void theWarpSpecializedKernelsShareTheGridAndDepthOfTheirFlagKernels() {
    KernelShape shape = pair.withGrids(96, 64, 32).withChunks(12, 4);

    assertThat(shape.blocks(Variant.ONESHOT_WS))
        .isEqualTo(shape.blocks(Variant.ONESHOT))
        .isEqualTo(96);
    assertThat(shape.blocks(Variant.TWOSHOT_WS))
        .isEqualTo(shape.blocks(Variant.TWOSHOT))
        .isEqualTo(64);
    assertThat(shape.blocks(Variant.LAMPORT2)).isEqualTo(32);
    assertThat(shape.chunks(Variant.ONESHOT_WS)).isEqualTo(12);
    assertThat(shape.chunks(Variant.TWOSHOT_WS)).isEqualTo(4);
  }

  @Test
  void aKernelIsFoundByTheNameOfItsFamilyAndAnUnknownNameListsThem() {
    assertThat(Variant.named("twoshot_ws")).isEqualTo(Variant.TWOSHOT_WS);
    assertThatThrownBy(() -> Variant.named("threeshot"))
        .hasMessage(
            "kernel variant must be oneshot, twoshot, lamport, lamport2, oneshot_ws, twoshot_ws,"
                + " oneshot_wsh, twoshot_wsh or oneshot_stream, got 'threeshot'");
  }

  @Test
  void theHostPathKernelsShareTheGridOfTheirFamilyAndFallBackToItsWarpSpecializedKernel() {
    assertThat(Variant.TWOSHOT_WSH.hostRoute()).isEqualTo(HostPath.Route.TWO_SHOT);
    assertThat(Variant.ONESHOT_WSH.hostRoute()).isEqualTo(HostPath.Route.ONE_SHOT);
    assertThat(Variant.TWOSHOT_WS.hostRoute()).isNull();
    assertThat(Variant.TWOSHOT_WSH.withoutHostPath()).isEqualTo(Variant.TWOSHOT_WS);
    assertThat(Variant.ONESHOT_WSH.withoutHostPath()).isEqualTo(Variant.ONESHOT_WS);
    assertThat(Variant.withHostPath(HostPath.Route.TWO_SHOT)).isEqualTo(Variant.TWOSHOT_WSH);
    assertThat(IpcAllReduce.withoutHostPath("twoshot_wsh")).isEqualTo("twoshot_ws");
    assertThat(IpcAllReduce.withoutHostPath("oneshot_wsh")).isEqualTo("oneshot_ws");
    assertThat(IpcAllReduce.withoutHostPath("lamport2")).isEqualTo("lamport2");
    assertThat(pair.blocks(Variant.TWOSHOT_WSH)).isEqualTo(pair.blocks(Variant.TWOSHOT));
    assertThat(pair.chunks(Variant.TWOSHOT_WSH)).isEqualTo(pair.chunks(Variant.TWOSHOT));
  }

  @Test
  void theStreamedOneshotRunsOnTheOneshotGridAndNumbersALaunchsChunksIn16Bits() {
    assertThat(Variant.named("oneshot_stream")).isEqualTo(Variant.ONESHOT_STREAM);
    assertThat(pair.blocks(Variant.ONESHOT_STREAM)).isEqualTo(pair.blocks(Variant.ONESHOT_WS));
    assertThat(pair.chunks(Variant.ONESHOT_STREAM)).isEqualTo(pair.chunks(Variant.ONESHOT_WS));
    for (int chunks : new int[] {1, 16, 63, KernelShape.MAX_PIPELINE_CHUNKS}) {
      long passes = IpcAllReduce.streamedPassesPerLaunch(chunks);
      assertThat(passes * chunks)
          .as("chunks numbered 1..n with %d a pass", chunks)
          .isLessThan(1 << 16);
      assertThat((passes + 1) * chunks)
          .as("no room for another pass")
          .isGreaterThanOrEqualTo((1 << 16) - 1);
    }
  }

  @Test
  void gridsAreFittedToTheMultiprocessorsAndNegativeLimitsRefused() {
    KernelShape fitted = pair.fittedTo(132);

    assertThat(fitted.oneShotBlocks()).isEqualTo(132);
    assertThat(fitted.oneShotWsMinBytes()).isEqualTo(pair.oneShotWsMinBytes());
    assertThatThrownBy(
            () ->
                new KernelShape(
                    132, 132, 132, 4 * MIB, 16 * MIB, 16, 8, -1, CudaCommunicatorSettings.NEVER))
        .hasMessage(
            "warp-specialized size limits must not be negative, got -1 and 9223372036854775807");
  }
}
