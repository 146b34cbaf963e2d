package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.DType;
import org.junit.jupiter.api.Test;

/** The launch shape of the add + RMSNorm kernel, which its block-wide sum relies on. */
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
}
