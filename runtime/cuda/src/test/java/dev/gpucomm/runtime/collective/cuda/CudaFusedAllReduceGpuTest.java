package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.AllReducePattern;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.FusedBuffers;
import dev.gpucomm.runtime.collective.NormEpilogue;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Graph;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.numeric.ElementCodec;
import dev.gpucomm.runtime.numeric.Fp8E4m3;
import dev.gpucomm.runtime.numeric.ResidualRmsNormReference;
import dev.gpucomm.runtime.testing.InMemoryStore;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The fused patterns on a real GPU with one rank: the unfused baseline (NCCL all-reduce, then
 * fusion.cu's add + RMSNorm kernel) and the fused one-shot and two-shot kernels (the spread Lamport
 * ones by default, the first ones where the settings ask for them), which run their whole protocol
 * (epochs, barriers, Lamport slots, gather area) with the rank as its only peer, eager and replayed
 * from a CUDA graph, within the float64 reference's bound for every dtype, with and without FP8
 * output and fp32 accumulation. Where the settings turn it on, the fused one-shot's calls of few
 * rows run the cluster kernel, which splits each row over a cluster of blocks, unless the row
 * cannot be split; both kernels are checked at the shapes where one or the other runs. Two-shot
 * calls of more rows than the grid has blocks run on a grid twice as wide unless the settings turn
 * it off; both grids are checked, and calls alternating between them. Several ranks run in
 * processes: {@code gpucomm selftest --device cuda --world 2} covers the same kernels across GPUs.
 */
@Tag("gpu")
class CudaFusedAllReduceGpuTest {
  private static final float FP8_SCALE = 0.01f;

  private CudaDevice device;
  private CudaCommunicator communicator;

  @BeforeEach
  void openOneRank() {
    CudaBackend backend = new CudaBackend();
    assumeTrue(backend.deviceCount() > 0, "no GPU: " + backend.unavailableReason());
    device = (CudaDevice) backend.open(0);
    communicator =
        CudaCommunicator.create(
            device,
            new InMemoryStore(),
            new RankTopology(0, 1, 0, 1),
            CudaCommunicatorSettings.defaults());
  }

  @AfterEach
  void close() {
    if (communicator != null) {
      communicator.close();
    }
    if (device != null) {
      device.close();
    }
  }

  @ParameterizedTest(name = "{0} {1} {2} fp32Accumulate={3} tokens={4} hidden={5}")
  @CsvSource({
    "nccl, allreduceResidualRmsNorm, bf16, true, 32, 8192",
    "nccl, allreduceResidualRmsNorm, bf16, false, 3, 8192",
    "nccl, allreduceResidualRmsNorm, fp16, true, 200, 1024",
    "nccl, allreduceResidualRmsNorm, fp32, true, 7, 4100",
    "nccl, allreduceResidualRmsNormFp8, bf16, true, 256, 8192",
    "nccl, allreduceResidualRmsNormFp8, fp32, false, 5, 64",
    // one-shot: the spread Lamport kernel up to the Lamport size, the flag kernel above it; rows
    // of up to four vectors per thread stay in registers (fp16 16384), longer ones (fp32 8200)
    // take the two-pass row
    "oneshot, allreduceResidualRmsNorm, bf16, true, 1, 8192",
    "oneshot, allreduceResidualRmsNorm, fp16, false, 2, 16384",
    "oneshot, allreduceResidualRmsNorm, fp32, true, 3, 8200",
    "oneshot, allreduceResidualRmsNorm, bf16, false, 3, 8192",
    "oneshot, allreduceResidualRmsNorm, bf16, true, 256, 8192",
    "oneshot, allreduceResidualRmsNorm, fp16, true, 200, 1024",
    "oneshot, allreduceResidualRmsNorm, fp32, true, 7, 4100",
    "oneshot, allreduceResidualRmsNormFp8, bf16, true, 256, 8192",
    "oneshot, allreduceResidualRmsNormFp8, fp32, false, 5, 64",
    // two-shot: also more rows than the fixed grid has blocks (256 x 8192 bf16 and 200 x 1024
    // fp16, on the wide grid by default)
    "twoshot, allreduceResidualRmsNorm, bf16, true, 32, 8192",
    "twoshot, allreduceResidualRmsNorm, bf16, false, 3, 8192",
    "twoshot, allreduceResidualRmsNorm, bf16, true, 256, 8192",
    "twoshot, allreduceResidualRmsNorm, fp16, true, 200, 1024",
    "twoshot, allreduceResidualRmsNorm, fp32, true, 7, 4100",
    "twoshot, allreduceResidualRmsNormFp8, bf16, true, 256, 8192",
    "twoshot, allreduceResidualRmsNormFp8, fp32, false, 5, 64",
  })
  void eachFusedAlgorithmMatchesTheFloat64ReferenceEagerAndInAGraph(
      String algorithmName,
      String patternName,
      String dtypeName,
      boolean fp32Accumulate,
      int tokens,
      int hidden) {
    runAndCheck(algorithmName, patternName, dtypeName, fp32Accumulate, tokens, hidden);
  }

  @ParameterizedTest(name = "{0} {1} {2} fp32Accumulate={3} tokens={4} hidden={5}")
  @CsvSource({
    "oneshot, allreduceResidualRmsNorm, bf16, true, 32, 8192",
    "oneshot, allreduceResidualRmsNorm, bf16, false, 3, 8192",
    "oneshot, allreduceResidualRmsNormFp8, fp32, true, 7, 4100",
    "twoshot, allreduceResidualRmsNorm, bf16, true, 32, 8192",
    "twoshot, allreduceResidualRmsNormFp8, fp32, false, 5, 64",
  })
  void theFirstKernelsStillMatchWhenTheSettingsAskForThem(
      String algorithmName,
      String patternName,
      String dtypeName,
      boolean fp32Accumulate,
      int tokens,
      int hidden) {
    reopenWith(Map.of("GPUCOMM_FUSED_SPREAD", "off"));
    runAndCheck(algorithmName, patternName, dtypeName, fp32Accumulate, tokens, hidden);
  }

  @ParameterizedTest(
      name =
          "GPUCOMM_FUSED_CLUSTER={0} {1} {2} fp32Accumulate={3} tokens={4}"
              + " hidden={5} runs {6}")
  @CsvSource({
    // one row over a cluster of 8, of 4 (fp32 8192) and of 2 (fp32 1024)
    "on, allreduceResidualRmsNorm, bf16, true, 1, 8192, LAMPORT_CLUSTER",
    "on, allreduceResidualRmsNorm, bf16, false, 1, 8192, LAMPORT_CLUSTER",
    "on, allreduceResidualRmsNorm, fp32, true, 5, 8192, LAMPORT_CLUSTER",
    "on, allreduceResidualRmsNorm, fp32, false, 1, 1024, LAMPORT_CLUSTER",
    // row counts that leave most clusters idle (3 of 16, 20 of 33), smaller clusters for more rows
    "on, allreduceResidualRmsNorm, bf16, false, 3, 8192, LAMPORT_CLUSTER",
    "on, allreduceResidualRmsNorm, bf16, true, 20, 8192, LAMPORT_CLUSTER",
    "on, allreduceResidualRmsNorm, bf16, true, 32, 8192, LAMPORT_CLUSTER",
    "on, allreduceResidualRmsNorm, bf16, false, 64, 8192, LAMPORT_CLUSTER",
    // slices of four vectors a thread (fp16 65536), of 130 vectors (a partly idle last warp)
    "on, allreduceResidualRmsNorm, fp16, false, 2, 65536, LAMPORT_CLUSTER",
    "on, allreduceResidualRmsNorm, bf16, true, 7, 8320, LAMPORT_CLUSTER",
    "on, allreduceResidualRmsNormFp8, bf16, true, 7, 8192, LAMPORT_CLUSTER",
    "on, allreduceResidualRmsNormFp8, fp16, false, 1, 4096, LAMPORT_CLUSTER",
    // rows the cluster kernel does not take: too short, an odd number of vectors, slices too long
    // for a block's registers, more rows than the grid has blocks
    "on, allreduceResidualRmsNorm, fp16, true, 4, 1024, LAMPORT_SPREAD",
    "on, allreduceResidualRmsNorm, fp32, true, 7, 4100, LAMPORT_SPREAD",
    "on, allreduceResidualRmsNorm, fp32, false, 3, 8200, LAMPORT_SPREAD",
    "on, allreduceResidualRmsNorm, bf16, true, 128, 8192, LAMPORT_SPREAD",
    // turned off: the spread kernel at the shapes the cluster kernel would take
    "off, allreduceResidualRmsNorm, bf16, true, 1, 8192, LAMPORT_SPREAD",
    "off, allreduceResidualRmsNorm, bf16, false, 3, 8192, LAMPORT_SPREAD",
    "off, allreduceResidualRmsNorm, bf16, true, 32, 8192, LAMPORT_SPREAD",
    "off, allreduceResidualRmsNorm, bf16, false, 64, 8192, LAMPORT_SPREAD",
    "off, allreduceResidualRmsNormFp8, bf16, true, 7, 8192, LAMPORT_SPREAD",
  })
  void theFusedOneShotRunsTheClusterKernelWhereItAppliesAndBothMatchTheReference(
      String cluster,
      String patternName,
      String dtypeName,
      boolean fp32Accumulate,
      int tokens,
      int hidden,
      FusedPeerAllReduce.Kernel expected) {
    assumeTrue(
        device.computeCapability().orElseThrow().major() >= 9,
        "thread block clusters need compute capability 9.0");
    // the communicator of every test has the default settings, in which it is off
    reopenWith(Map.of("GPUCOMM_FUSED_CLUSTER", cluster));
    DType dtype = DType.fromWireName(dtypeName).orElseThrow();
    NormEpilogue epilogue =
        new NormEpilogue(
            AllReducePattern.fromWireName(patternName).orElseThrow(),
            hidden,
            NormEpilogue.DEFAULT_EPSILON,
            FP8_SCALE,
            fp32Accumulate);

    assertThat(communicator.fusedKernel(Algorithm.ONESHOT, tokens, dtype, epilogue))
        .contains(expected);
    runAndCheck("oneshot", patternName, dtypeName, fp32Accumulate, tokens, hidden);
  }

  @ParameterizedTest(name = "GPUCOMM_FUSED_CLUSTER={0}")
  @CsvSource({"on", "off"})
  void oneShotCallsAlternatingBetweenTheClusterAndTheSpreadKernelShareTheirSlots(String cluster) {
    reopenWith(Map.of("GPUCOMM_FUSED_CLUSTER", cluster));
    // On a GPU of 132 multiprocessors (H100, H200):
    // clusters of 8 (a grid of 128 blocks, which keeps the state of the 4 it lacks), the spread
    // kernel on the whole grid, clusters of 4 on the whole grid, then clusters of 8 again: each
    // shape's three calls rotate through every Lamport slot after the other kernel used it.
    runAndCheck("oneshot", "allreduceResidualRmsNorm", "bf16", true, 4, 8192);
    runAndCheck("oneshot", "allreduceResidualRmsNorm", "bf16", true, 128, 8192);
    runAndCheck("oneshot", "allreduceResidualRmsNorm", "fp32", false, 7, 4100);
    runAndCheck("oneshot", "allreduceResidualRmsNorm", "bf16", false, 33, 8192);
    runAndCheck("oneshot", "allreduceResidualRmsNormFp8", "fp16", true, 2, 16384);
    runAndCheck("oneshot", "allreduceResidualRmsNorm", "bf16", true, 4, 8192);
  }

  @ParameterizedTest(
      name = "GPUCOMM_FUSED_ROW_COPIES={0} {1} {2} fp32Accumulate={3} tokens={4} hidden={5}")
  @CsvSource({
    // several blocks finish each row of the spread one-shot, each storing its share: a share left
    // unstored keeps the NaN the check clears the outputs to before the graph's call
    "2, allreduceResidualRmsNorm, bf16, true, 32, 8192",
    "2, allreduceResidualRmsNorm, bf16, false, 66, 8192",
    // 17 vectors a row in three shares of 5, 6 and 6
    "3, allreduceResidualRmsNorm, bf16, true, 13, 136",
    // 1025 vectors a row, some threads holding three
    "4, allreduceResidualRmsNorm, fp32, false, 7, 4100",
    "8, allreduceResidualRmsNormFp8, bf16, true, 16, 8192",
    "8, allreduceResidualRmsNormFp8, fp16, false, 1, 4096",
    // more rows than the grid has room for copies of: one block a row
    "2, allreduceResidualRmsNorm, bf16, true, 100, 8192",
    "1, allreduceResidualRmsNorm, bf16, true, 32, 8192",
  })
  void oneShotRowsFinishedBySeveralBlocksMatchTheReference(
      String copies,
      String patternName,
      String dtypeName,
      boolean fp32Accumulate,
      int tokens,
      int hidden) {
    reopenWith(Map.of("GPUCOMM_FUSED_ROW_COPIES", copies));
    NormEpilogue epilogue =
        new NormEpilogue(
            AllReducePattern.fromWireName(patternName).orElseThrow(),
            hidden,
            NormEpilogue.DEFAULT_EPSILON,
            FP8_SCALE,
            fp32Accumulate);

    assertThat(
            communicator.fusedKernel(
                Algorithm.ONESHOT, tokens, DType.fromWireName(dtypeName).orElseThrow(), epilogue))
        .contains(FusedPeerAllReduce.Kernel.LAMPORT_SPREAD);
    runAndCheck("oneshot", patternName, dtypeName, fp32Accumulate, tokens, hidden);
  }

  @ParameterizedTest(
      name = "GPUCOMM_FUSED_ROW_COPIES={0} {1} {2} fp32Accumulate={3} tokens={4} hidden={5}")
  @CsvSource({
    "2, allreduceResidualRmsNorm, bf16, true, 32, 8192",
    "2, allreduceResidualRmsNorm, bf16, false, 64, 8192",
    "3, allreduceResidualRmsNorm, fp16, false, 13, 136",
    "4, allreduceResidualRmsNorm, fp32, true, 7, 4100",
    "8, allreduceResidualRmsNormFp8, bf16, true, 16, 8192",
  })
  void rowsFinishedBySeveralBlocksAreBitIdenticalToOneBlockARow(
      String copies,
      String patternName,
      String dtypeName,
      boolean fp32Accumulate,
      int tokens,
      int hidden) {
    // Ranks need not agree on the setting because every count stores the same bits.
    reopenWith(Map.of("GPUCOMM_FUSED_ROW_COPIES", "1"));
    withCall(
        "oneshot",
        patternName,
        dtypeName,
        fp32Accumulate,
        tokens,
        hidden,
        1,
        fused -> {
          fused.call().run();
          fused.check().run();
          byte[] oneBlockARow = fused.outputs().get();
          reopenWith(Map.of("GPUCOMM_FUSED_ROW_COPIES", copies));
          fused.clearOutputs().run();
          fused.call().run();
          assertThat(Arrays.mismatch(fused.outputs().get(), oneBlockARow))
              .as("first byte of residualOut and out that differs with %s blocks a row", copies)
              .isEqualTo(-1);
        });
  }

  @Test
  void oneShotCallsAlternatingBetweenOneAndSeveralBlocksARowShareTheirSlots() {
    // Each shape's three calls rotate through every Lamport slot after calls of another split
    reopenWith(Map.of("GPUCOMM_FUSED_ROW_COPIES", "4"));
    runAndCheck("oneshot", "allreduceResidualRmsNorm", "bf16", true, 32, 8192);
    runAndCheck("oneshot", "allreduceResidualRmsNorm", "bf16", true, 128, 8192);
    runAndCheck("oneshot", "allreduceResidualRmsNorm", "bf16", false, 13, 136);
    runAndCheck("oneshot", "allreduceResidualRmsNorm", "bf16", true, 32, 8192);
  }

  @ParameterizedTest(
      name = "GPUCOMM_FUSED_WIDE_GRID={0} {1} {2} fp32Accumulate={3} tokens={4} hidden={5}")
  @CsvSource({
    // more rows than the fixed grid's blocks: one row a block on the wide grid (264 blocks on a
    // GPU of 132 multiprocessors), two on some blocks of the fixed one
    // (256 x 8192 bf16 and 200 x 1024 fp16 run with the default settings above)
    "on, allreduceResidualRmsNorm, bf16, false, 133, 8192",
    "on, allreduceResidualRmsNormFp8, bf16, true, 256, 8192",
    "on, allreduceResidualRmsNorm, fp16, false, 200, 1024",
    // more rows than even the wide grid's blocks, and rows too long for its blocks (fixed grid)
    "on, allreduceResidualRmsNorm, bf16, true, 500, 4096",
    "on, allreduceResidualRmsNorm, fp32, false, 200, 4100",
    "off, allreduceResidualRmsNorm, bf16, true, 256, 8192",
    "off, allreduceResidualRmsNorm, bf16, false, 500, 4096",
  })
  void twoShotCallsOfMoreRowsThanTheGridHasBlocksMatchTheReferenceOnEitherGrid(
      String wide,
      String patternName,
      String dtypeName,
      boolean fp32Accumulate,
      int tokens,
      int hidden) {
    reopenWith(Map.of("GPUCOMM_FUSED_WIDE_GRID", wide));
    runAndCheck("twoshot", patternName, dtypeName, fp32Accumulate, tokens, hidden);
  }

  @Test
  void twoShotCallsAlternatingBetweenTheFixedAndTheWideGridShareTheirSlots() {
    // Each shape's three calls rotate through every Lamport slot after the other grid used it:
    // blocks of the wide grid that the fixed grid lacks must find the epoch and slot sizes of the
    // calls they missed.
    runAndCheck("twoshot", "allreduceResidualRmsNorm", "bf16", true, 64, 8192);
    runAndCheck("twoshot", "allreduceResidualRmsNorm", "bf16", true, 256, 8192);
    runAndCheck("twoshot", "allreduceResidualRmsNorm", "fp32", false, 7, 4100);
    runAndCheck("twoshot", "allreduceResidualRmsNormFp8", "bf16", false, 500, 4096);
    runAndCheck("twoshot", "allreduceResidualRmsNorm", "bf16", true, 64, 8192);
  }

  @ParameterizedTest(
      name = "GPUCOMM_FUSED_OWN_ROWS={0} {1} {2} fp32Accumulate={3} tokens={4} hidden={5}: {6}")
  @CsvSource({
    // every row a block of its own and most blocks a row on a GPU of 132 multiprocessors:
    // fused_lamport2_own on the fixed grid and on the wide one
    "on, allreduceResidualRmsNorm, bf16, true, 128, 8192, LAMPORT2_OWN",
    "on, allreduceResidualRmsNorm, bf16, false, 96, 8192, LAMPORT2_OWN",
    "on, allreduceResidualRmsNormFp8, bf16, true, 256, 8192, LAMPORT2_OWN",
    "on, allreduceResidualRmsNorm, fp16, false, 200, 1024, LAMPORT2_OWN",
    "on, allreduceResidualRmsNorm, fp32, true, 120, 4100, LAMPORT2_OWN",
    // half the blocks idle, or the setting off: the spread reduce
    "on, allreduceResidualRmsNorm, bf16, true, 64, 8192, LAMPORT2",
    "off, allreduceResidualRmsNorm, bf16, true, 128, 8192, LAMPORT2",
  })
  void twoShotCallsOfOwnRowsMatchTheReferenceWithEitherKernel(
      String ownRows,
      String patternName,
      String dtypeName,
      boolean fp32Accumulate,
      int tokens,
      int hidden,
      FusedPeerAllReduce.Kernel expected) {
    assumeTrue(
        device.multiprocessors() == 132, "the cases are cut for 132 multiprocessors (H100, H200)");
    reopenWith(Map.of("GPUCOMM_FUSED_OWN_ROWS", ownRows));
    NormEpilogue epilogue =
        new NormEpilogue(
            AllReducePattern.fromWireName(patternName).orElseThrow(),
            hidden,
            NormEpilogue.DEFAULT_EPSILON,
            FP8_SCALE,
            fp32Accumulate);

    assertThat(
            communicator.fusedKernel(
                Algorithm.TWOSHOT, tokens, DType.fromWireName(dtypeName).orElseThrow(), epilogue))
        .contains(expected);
    runAndCheck("twoshot", patternName, dtypeName, fp32Accumulate, tokens, hidden);
  }

  @Test
  void twoShotCallsAlternatingBetweenOwnRowsAndTheSpreadReduceShareTheirSlots() {
    // A call of own rows leaves this rank's own entries of its slot empty and refills the previous
    // slot's only where the call before it wrote them. Single calls rotate through the three slots:
    // spread (slot a), own (refills a), own, spread (slot a again, whose own entries must be empty
    // by then), own, spread, ... each on inputs of its own, so that a stale entry shows.
    long seed = 10;
    for (int round = 0; round < 3; round++) {
      callOnceAndCheck("twoshot", "allreduceResidualRmsNorm", "bf16", true, 64, 8192, seed += 3);
      callOnceAndCheck("twoshot", "allreduceResidualRmsNorm", "bf16", true, 128, 8192, seed += 3);
      callOnceAndCheck("twoshot", "allreduceResidualRmsNorm", "bf16", false, 256, 8192, seed += 3);
    }
    runAndCheck("twoshot", "allreduceResidualRmsNorm", "fp32", false, 7, 4100);
    runAndCheck("twoshot", "allreduceResidualRmsNormFp8", "bf16", false, 500, 4096);
    runAndCheck("twoshot", "allreduceResidualRmsNorm", "bf16", true, 128, 8192);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"oneshot", "twoshot"})
  void callsOfOtherRowSizesInTurnFindTheirLamportSlotsRefilled(String algorithmName) {
    // Each shape runs three calls, one per Lamport slot, so every slot is refilled after a call
    // of another size: a refill sized by the current call would leave stale vectors behind.
    runAndCheck(algorithmName, "allreduceResidualRmsNorm", "fp32", true, 7, 4100);
    runAndCheck(algorithmName, "allreduceResidualRmsNorm", "bf16", true, 13, 136);
    runAndCheck(algorithmName, "allreduceResidualRmsNormFp8", "fp16", false, 64, 8192);
    runAndCheck(algorithmName, "allreduceResidualRmsNorm", "fp32", true, 7, 4100);
  }

  private void reopenWith(Map<String, String> environment) {
    communicator.close();
    communicator =
        CudaCommunicator.create(
            device,
            new InMemoryStore(),
            new RankTopology(0, 1, 0, 1),
            CudaCommunicatorSettings.from(environment));
  }

  private void runAndCheck(
      String algorithmName,
      String patternName,
      String dtypeName,
      boolean fp32Accumulate,
      int tokens,
      int hidden) {
    withCall(
        algorithmName,
        patternName,
        dtypeName,
        fp32Accumulate,
        tokens,
        hidden,
        1,
        fused -> {
          fused.call().run();
          fused.check().run();
          // A second eager call runs on the next epoch (and the next Lamport slot).
          fused.call().run();
          fused.check().run();
          fused.clearOutputs();
          try (Graph graph = device.capture(device.defaultStream(), fused.call())) {
            graph.replay(device.defaultStream());
          }
          fused.check().run();
        });
  }

  /** One eager call on inputs of their own ({@code seed}), checked. */
  private void callOnceAndCheck(
      String algorithmName,
      String patternName,
      String dtypeName,
      boolean fp32Accumulate,
      int tokens,
      int hidden,
      long seed) {
    withCall(
        algorithmName,
        patternName,
        dtypeName,
        fp32Accumulate,
        tokens,
        hidden,
        seed,
        fused -> {
          fused.call().run();
          fused.check().run();
        });
  }

  /**
   * A fused call on device buffers, the check of its outputs, a way to spoil them first, and their
   * bytes (residualOut, then out).
   */
  private record FusedCall(
      Runnable call, Runnable check, Runnable clearOutputs, Supplier<byte[]> outputs) {}

  /**
   * Runs {@code calls} with a fused call of this shape on random inputs drawn from {@code seed}
   * (input), {@code seed + 1} (residual) and {@code seed + 2} (gamma); skipped where the algorithm
   * does not run fused here.
   */
  private void withCall(
      String algorithmName,
      String patternName,
      String dtypeName,
      boolean fp32Accumulate,
      int tokens,
      int hidden,
      long seed,
      Consumer<FusedCall> calls) {
    Algorithm algorithm = Algorithm.fromWireName(algorithmName).orElseThrow();
    assumeTrue(
        communicator.fusedAllReduceAlgorithms().contains(algorithm),
        algorithmName + " does not run fused here: " + communicator.unavailableReason());
    AllReducePattern pattern = AllReducePattern.fromWireName(patternName).orElseThrow();
    DType dtype = DType.fromWireName(dtypeName).orElseThrow();
    ElementCodec codec = ElementCodec.of(dtype);
    NormEpilogue epilogue =
        new NormEpilogue(pattern, hidden, NormEpilogue.DEFAULT_EPSILON, FP8_SCALE, fp32Accumulate);
    long count = (long) tokens * hidden;
    long bytes = count * dtype.bytes();
    long outputBytes = count * epilogue.outputElementBytes(dtype);
    try (Arena arena = Arena.ofConfined();
        DeviceBuffer input = device.allocate(bytes);
        DeviceBuffer residual = device.allocate(bytes);
        DeviceBuffer gamma = device.allocate((long) hidden * dtype.bytes());
        DeviceBuffer residualOut = device.allocate(bytes);
        DeviceBuffer output = device.allocate(outputBytes)) {
      MemorySegment hostInput = upload(arena, codec, input, count, seed);
      MemorySegment hostResidual = upload(arena, codec, residual, count, seed + 1);
      MemorySegment hostGamma = upload(arena, codec, gamma, hidden, seed + 2);
      FusedBuffers buffers = new FusedBuffers(input, residual, gamma, residualOut, output);
      calls.accept(
          new FusedCall(
              () ->
                  communicator.allReduceResidualRmsNorm(
                      algorithm, buffers, tokens, dtype, epilogue, device.defaultStream()),
              () ->
                  check(
                      arena, buffers, tokens, dtype, epilogue, hostInput, hostResidual, hostGamma),
              () -> {
                device.fill(residualOut, 0, bytes, (byte) 0x7f, device.defaultStream());
                device.fill(output, 0, outputBytes, (byte) 0x7f, device.defaultStream());
              },
              () -> {
                MemorySegment host = arena.allocate(bytes + outputBytes, 16);
                device.download(residualOut, 0, host.asSlice(0, bytes), device.defaultStream());
                device.download(
                    output, 0, host.asSlice(bytes, outputBytes), device.defaultStream());
                return host.toArray(ValueLayout.JAVA_BYTE);
              }));
    }
  }

  private MemorySegment upload(
      Arena arena, ElementCodec codec, DeviceBuffer buffer, long count, long seed) {
    MemorySegment host = arena.allocate(count * codec.bytes(), 16);
    codec.fillRandom(host, count, seed);
    device.upload(host, buffer, 0);
    return host;
  }

  private void check(
      Arena arena,
      FusedBuffers buffers,
      int tokens,
      DType dtype,
      NormEpilogue epilogue,
      MemorySegment input,
      MemorySegment residual,
      MemorySegment gamma) {
    ElementCodec codec = ElementCodec.of(dtype);
    int hidden = epilogue.hiddenSize();
    MemorySegment residualOut = arena.allocate(buffers.residualOut().byteSize(), 16);
    MemorySegment output = arena.allocate(buffers.output().byteSize(), 16);
    device.download(buffers.residualOut(), 0, residualOut, device.defaultStream());
    device.download(buffers.output(), 0, output, device.defaultStream());
    // NCCL may sum in the element type, so the bound allows a rounded partial sum.
    ResidualRmsNormReference reference =
        new ResidualRmsNormReference(dtype, 1, hidden, epilogue.epsilon(), true);
    float[] rowInput = new float[hidden];
    float[] rowResidual = new float[hidden];
    float[] rowGamma = new float[hidden];
    codec.load(gamma, 0, rowGamma, 0, hidden);
    boolean fp8 = epilogue.pattern().quantizesToFp8();
    for (int row = 0; row < tokens; row++) {
      long first = (long) row * hidden;
      codec.load(input, first, rowInput, 0, hidden);
      codec.load(residual, first, rowResidual, 0, hidden);
      reference.startRow(rowResidual, rowGamma);
      reference.addRank(rowInput);
      reference.finishRow();
      for (int i = 0; i < hidden; i++) {
        double gotResidual = codec.read(residualOut, first + i);
        assertThat(Math.abs(gotResidual - reference.residualOut(i)))
            .as("residual[%d][%d]", row, i)
            .isLessThanOrEqualTo(reference.residualOutBound(i));
        double got =
            fp8
                ? Fp8E4m3.toFloat(output.get(ValueLayout.JAVA_BYTE, first + i)) * FP8_SCALE
                : codec.read(output, first + i);
        double exact = fp8 ? reference.fp8Out(i, FP8_SCALE) : reference.out(i);
        double bound = fp8 ? reference.fp8OutBound(i, FP8_SCALE) : reference.outBound(i);
        assertThat(Math.abs(got - exact)).as("out[%d][%d]", row, i).isLessThanOrEqualTo(bound);
      }
    }
  }
}
