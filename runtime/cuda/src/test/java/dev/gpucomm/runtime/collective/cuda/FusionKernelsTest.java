package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.DType;
import org.junit.jupiter.api.Test;

/**
 * The launch shape of the add + RMSNorm kernel, which its block-wide sum relies on, and which PTX
 * the fused kernels load for a world size.
 */
class FusionKernelsTest {

  @Test
  void aLlamaRowOfBf16GetsOneThreadPerVectorInWholeWarps() {
    // 8192 bf16 elements are 1024 vectors of 16 bytes: more than a block, so threads loop.
    assertThat(FusionKernels.threads(8192, DType.BF16)).isEqualTo(FusionKernels.MAX_THREADS);
    assertThat(FusionKernels.threads(1024, DType.BF16)).isEqualTo(128);
    assertThat(FusionKernels.threads(40, DType.FP32)).isEqualTo(32);
  }

  @Test
  void rowsBeyondTheSmCountShareBlocks() {
    assertThat(FusionKernels.blocks(32)).isEqualTo(32);
    assertThat(FusionKernels.blocks(4096)).isEqualTo(FusionKernels.MAX_BLOCKS);
    assertThat(FusionKernels.blocks(0)).isEqualTo(1);
  }

  @Test
  void worldsOfTwoFourAndEightLoadKernelsBuiltForThemAndOthersTheGenericOnes() {
    assertThat(FusionKernels.ptxResource(2)).isEqualTo("ptx/fusion-w2.ptx");
    assertThat(FusionKernels.ptxResource(8)).isEqualTo("ptx/fusion-w8.ptx");
    assertThat(FusionKernels.ptxResource(3)).isEqualTo(FusionKernels.PTX_RESOURCE);
    for (int world = 1; world <= 8; world++) {
      String resource = FusionKernels.ptxResource(world);
      assertThat(FusionKernels.class.getClassLoader().getResource(resource))
          .as(resource + " is in the runtime jar")
          .isNotNull();
    }
  }
}
