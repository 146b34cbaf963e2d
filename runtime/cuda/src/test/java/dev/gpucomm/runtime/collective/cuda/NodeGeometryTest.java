package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.testing.InMemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The node's ranks compare the settings their peer-memory collectives must share, and all refuse
 * with the same reason when one differs.
 */
class NodeGeometryTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final int H100_MULTIPROCESSORS = 132;

  @Test
  void ranksWithTheSameSettingsOpenTheGatherAndTheFusedKernels() throws Exception {
    CudaCommunicatorSettings settings = CudaCommunicatorSettings.defaults();
    NodeGeometry gather = GatherScatter.geometry(settings, H100_MULTIPROCESSORS);
    NodeGeometry fused = FusedPeerAllReduce.geometry(settings, H100_MULTIPROCESSORS);

    assertThat(agreeOnRanks(gather, gather, gather, gather)).containsOnly(Optional.empty());
    assertThat(agreeOnRanks(fused, fused)).containsOnly(Optional.empty());
  }

  @Test
  void ranksWithDifferentCopyEnginePiecesAllRefuseTheGatherNamingTheSettingAndBothValues()
      throws Exception {
    NodeGeometry eightMib =
        GatherScatter.geometry(settings("GPUCOMM_COPYENGINE_PIECE_BYTES", 8), H100_MULTIPROCESSORS);
    NodeGeometry fourMib =
        GatherScatter.geometry(settings("GPUCOMM_COPYENGINE_PIECE_BYTES", 4), H100_MULTIPROCESSORS);

    List<Optional<String>> refusals = agreeOnRanks(eightMib, fourMib);

    assertThat(refusals)
        .containsOnly(
            Optional.of(
                "GPUCOMM_COPYENGINE_PIECE_BYTES differs across the node's ranks: local rank 0 has"
                    + " 8388608, local rank 1 has 4194304"));
  }

  @Test
  void ranksWithDifferentLlGatherLimitsRefuseTheGatherSinceTheyWouldRunDifferentKernels()
      throws Exception {
    NodeGeometry ll =
        GatherScatter.geometry(CudaCommunicatorSettings.defaults(), H100_MULTIPROCESSORS);
    NodeGeometry noLl =
        GatherScatter.geometry(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_GATHER_LL_MAX_BYTES", "0")),
            H100_MULTIPROCESSORS);

    assertThat(agreeOnRanks(ll, noLl))
        .containsOnly(
            Optional.of(
                "GPUCOMM_GATHER_LL_MAX_BYTES differs across the node's ranks: local rank 0 has"
                    + " 524288, local rank 1 has 0"));
  }

  @Test
  void ranksCuttingTheGatherIntoRoundsOfDifferentSizesRefuseItSinceTheRoundsWouldNotMeet()
      throws Exception {
    NodeGeometry fourMib =
        GatherScatter.geometry(
            CudaCommunicatorSettings.from(
                Map.of("GPUCOMM_REDUCESCATTER_ROUND_BYTES", String.valueOf(4L << 20))),
            H100_MULTIPROCESSORS);
    NodeGeometry eightMib =
        GatherScatter.geometry(
            CudaCommunicatorSettings.from(
                Map.of("GPUCOMM_REDUCESCATTER_ROUND_BYTES", String.valueOf(8L << 20))),
            H100_MULTIPROCESSORS);

    assertThat(agreeOnRanks(fourMib, eightMib))
        .containsOnly(
            Optional.of(
                "GPUCOMM_REDUCESCATTER_ROUND_BYTES differs across the node's ranks: local rank 0 has"
                    + " 4194304, local rank 1 has 8388608"));
  }

  @Test
  void ranksWithDifferentPeerBuffersAllRefuseTheIpcAllReduceNamingTheSetting() throws Exception {
    // Passes through a smaller buffer would cut a large call differently on that rank.
    NodeGeometry defaults =
        IpcAllReduce.geometry(CudaCommunicatorSettings.defaults(), H100_MULTIPROCESSORS);
    NodeGeometry smallBuffer =
        IpcAllReduce.geometry(
            CudaCommunicatorSettings.from(
                Map.of("GPUCOMM_PEER_BUFFER_BYTES", String.valueOf(16L << 20))),
            H100_MULTIPROCESSORS);

    assertThat(agreeOnRanks(defaults, defaults)).containsOnly(Optional.empty());
    assertThat(agreeOnRanks(defaults, defaults, smallBuffer))
        .containsOnly(
            Optional.of(
                "GPUCOMM_PEER_BUFFER_BYTES differs across the node's ranks: local rank 0 has"
                    + " 67108864, local rank 2 has 16777216"));
  }

  @Test
  void aRankWithoutTheHostPathMakesEveryRankRefuseTheIpcAllReduce() throws Exception {
    NodeGeometry auto =
        IpcAllReduce.geometry(CudaCommunicatorSettings.defaults(), H100_MULTIPROCESSORS);
    NodeGeometry off =
        IpcAllReduce.geometry(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_HOST_PATH", "off")),
            H100_MULTIPROCESSORS);

    assertThat(agreeOnRanks(off, auto))
        .containsOnly(
            Optional.of(
                "GPUCOMM_HOST_PATH differs across the node's ranks: local rank 0 has off, local"
                    + " rank 1 has auto"));
  }

  @Test
  void oneRankWithTheFirstFusedKernelsMakesEveryRankRefuseTheFusedAllReduce() throws Exception {
    CudaCommunicatorSettings spread = CudaCommunicatorSettings.defaults();
    CudaCommunicatorSettings first =
        CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_SPREAD", "off"));
    NodeGeometry spreadKernels = FusedPeerAllReduce.geometry(spread, H100_MULTIPROCESSORS);
    NodeGeometry firstKernels = FusedPeerAllReduce.geometry(first, H100_MULTIPROCESSORS);

    List<Optional<String>> refusals =
        agreeOnRanks(spreadKernels, spreadKernels, firstKernels, spreadKernels);

    assertThat(refusals)
        .containsOnly(
            Optional.of(
                "GPUCOMM_FUSED_SPREAD differs across the node's ranks: local rank 0 has on, local"
                    + " rank 2 has off"));
  }

  @Test
  void oneRankWithoutTheClusterKernelMakesEveryRankRefuseTheFusedAllReduce() throws Exception {
    // The cluster kernel sums a row's squares in another order: ranks running different kernels
    // would store rows that differ in the last bit.
    NodeGeometry clusters =
        FusedPeerAllReduce.geometry(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_CLUSTER", "on")),
            H100_MULTIPROCESSORS);
    NodeGeometry noClusters =
        FusedPeerAllReduce.geometry(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_CLUSTER", "off")),
            H100_MULTIPROCESSORS);

    List<Optional<String>> refusals = agreeOnRanks(clusters, noClusters);

    assertThat(refusals)
        .containsOnly(
            Optional.of(
                "GPUCOMM_FUSED_CLUSTER differs across the node's ranks: local rank 0 has on, local"
                    + " rank 1 has off"));
  }

  @Test
  void oneRankWithoutTheWideTwoShotGridMakesEveryRankRefuseTheFusedAllReduce() throws Exception {
    // The wide grid's blocks add a row's squares in groups of another size.
    NodeGeometry wide =
        FusedPeerAllReduce.geometry(CudaCommunicatorSettings.defaults(), H100_MULTIPROCESSORS);
    NodeGeometry fixed =
        FusedPeerAllReduce.geometry(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_WIDE_GRID", "off")),
            H100_MULTIPROCESSORS);

    List<Optional<String>> refusals = agreeOnRanks(wide, fixed);

    assertThat(refusals)
        .containsOnly(
            Optional.of(
                "GPUCOMM_FUSED_WIDE_GRID differs across the node's ranks: local rank 0 has on,"
                    + " local rank 1 has off"));
  }

  @Test
  void oneRankThatKeepsItsOwnRowsInTheSpreadKernelMakesEveryRankRefuseTheFusedAllReduce()
      throws Exception {
    NodeGeometry ownRows =
        FusedPeerAllReduce.geometry(CudaCommunicatorSettings.defaults(), H100_MULTIPROCESSORS);
    NodeGeometry spread =
        FusedPeerAllReduce.geometry(
            CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_OWN_ROWS", "off")),
            H100_MULTIPROCESSORS);

    List<Optional<String>> refusals = agreeOnRanks(ownRows, spread);

    assertThat(refusals)
        .containsOnly(
            Optional.of(
                "GPUCOMM_FUSED_OWN_ROWS differs across the node's ranks: local rank 0 has on,"
                    + " local rank 1 has off"));
  }

  @Test
  void aRankWhoseBlockLimitForbidsOnlyTheWideGridMakesEveryRankRefuseTheFusedAllReduce()
      throws Exception {
    // Both ranks run 132 fixed blocks, but one may not launch the wide grid's 264.
    CudaCommunicatorSettings whole = CudaCommunicatorSettings.defaults();
    NodeGeometry wholeGpu = FusedPeerAllReduce.geometry(whole, H100_MULTIPROCESSORS);
    NodeGeometry limited =
        FusedPeerAllReduce.geometry(whole.withMaxBlocks(150), H100_MULTIPROCESSORS);

    List<Optional<String>> refusals = agreeOnRanks(wholeGpu, limited);

    assertThat(refusals)
        .containsOnly(
            Optional.of(
                "fused two-shot blocks at most (GPUCOMM_FUSED_WIDE_GRID and maxBlocks) differs"
                    + " across the node's ranks: local rank 0 has 264, local rank 1 has 150"));
  }

  @Test
  void aRankWhoseFusedGridIsLimitedMakesEveryRankRefuseTheFusedAllReduce() throws Exception {
    CudaCommunicatorSettings whole = CudaCommunicatorSettings.defaults();
    NodeGeometry wholeGpu = FusedPeerAllReduce.geometry(whole, H100_MULTIPROCESSORS);
    NodeGeometry limited =
        FusedPeerAllReduce.geometry(whole.withMaxBlocks(16), H100_MULTIPROCESSORS);

    List<Optional<String>> refusals = agreeOnRanks(wholeGpu, limited);

    assertThat(refusals)
        .containsOnly(
            Optional.of(
                "fused kernel blocks (the GPU's multiprocessors, or maxBlocks) differs across the"
                    + " node's ranks: local rank 0 has 132, local rank 1 has 16"));
  }

  @Test
  void anEntryOnlyALaterRankPublishesIsAMismatchToo() {
    NodeGeometry older = NodeGeometry.empty().with("GPUCOMM_PEER_BUFFER_BYTES", 64);
    NodeGeometry newer = older.with("copy-engine parts per slot", 4);

    Optional<String> refusal =
        NodeGeometry.firstMismatch(
            List.of(NodeGeometry.decode(older.encode()), NodeGeometry.decode(newer.encode())));

    assertThat(refusal)
        .contains(
            "copy-engine parts per slot differs across the node's ranks: local rank 0 has (not"
                + " published), local rank 1 has 4");
  }

  private static CudaCommunicatorSettings settings(String variable, long mebibytes) {
    return CudaCommunicatorSettings.from(Map.of(variable, String.valueOf(mebibytes << 20)));
  }

  /** One node of as many ranks as geometries, each publishing its own; what each rank concluded. */
  private static List<Optional<String>> agreeOnRanks(NodeGeometry... byLocalRank) throws Exception {
    InMemoryStore store = new InMemoryStore();
    ExecutorService ranks = Executors.newFixedThreadPool(byLocalRank.length);
    try {
      List<Future<Optional<String>>> concluded = new ArrayList<>();
      for (int rank = 0; rank < byLocalRank.length; rank++) {
        NodeGeometry own = byLocalRank[rank];
        int localRank = rank;
        Callable<Optional<String>> agree =
            () -> own.agree(store, "job/node-0/gather", localRank, byLocalRank.length, TIMEOUT);
        concluded.add(ranks.submit(agree));
      }
      List<Optional<String>> refusals = new ArrayList<>();
      for (Future<Optional<String>> refusal : concluded) {
        refusals.add(refusal.get());
      }
      return refusals;
    } finally {
      ranks.shutdownNow();
    }
  }
}
