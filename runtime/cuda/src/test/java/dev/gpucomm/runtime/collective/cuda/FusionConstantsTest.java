package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The host's copies of fusion.cu's sizes match the source the committed PTX is built from: a grid
 * or a block the kernels' per-block arrays and registers were not sized for would corrupt their
 * state or leave rows unnormalized, not fail.
 */
class FusionConstantsTest {
  private static final Path SOURCE = Path.of("src/main/cuda/fusion.cu");

  @Test
  void theHostsCopiesOfTheKernelsSizesMatchFusionCu() throws IOException {
    String source = Files.readString(SOURCE);

    assertThat(defined(source, "FUSION_MAX_BLOCKS"))
        .isEqualTo(String.valueOf(FusedPeerAllReduce.MAX_BLOCKS))
        .isEqualTo(String.valueOf(FusionKernels.MAX_BLOCKS));
    // FusedTwoShotGrid.MAX_BLOCKS is twice FusedPeerAllReduce.MAX_BLOCKS
    assertThat(defined(source, "LAMPORT2_MAX_BLOCKS")).isEqualTo("(2 * FUSION_MAX_BLOCKS)");
    assertThat(defined(source, "FUSION_THREADS"))
        .isEqualTo(String.valueOf(FusionKernels.MAX_THREADS));
    assertThat(defined(source, "CLUSTER_THREADS"))
        .isEqualTo(String.valueOf(FusedClusterShape.MAX_THREADS));
    assertThat(defined(source, "SPREAD_ROW_VECTORS"))
        .isEqualTo(String.valueOf(FusedTwoShotGrid.VECTORS_PER_THREAD))
        .isEqualTo(String.valueOf(FusedClusterShape.VECTORS_PER_THREAD));
    Matcher controlBound =
        Pattern.compile("static_assert\\(sizeof\\(FusionControl\\) <= (\\d+),").matcher(source);
    assertThat(controlBound.find()).as("FusionControl's static_assert in " + SOURCE).isTrue();
    assertThat(Integer.parseInt(controlBound.group(1))).isEqualTo(PeerMemory.CONTROL_BYTES);
  }

  private static String defined(String source, String name) {
    Matcher define =
        Pattern.compile("^#define " + name + " (.+)$", Pattern.MULTILINE).matcher(source);
    assertThat(define.find()).as("#define " + name + " in " + SOURCE).isTrue();
    return define.group(1).strip();
  }
}
