package dev.gpucomm.runtime.collective.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.AllReducePattern;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.FusedBuffers;
import dev.gpucomm.runtime.collective.NormEpilogue;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.numeric.Fp8E4m3;
import dev.gpucomm.runtime.numeric.ResidualRmsNormReference;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every fused pattern × dtype × algorithm, with and without fp32 accumulation, for worlds of 1 to 8
 * ranks: the updated residual and the normalized output (FP8 after dequantization) within the
 * stated bound of a float64 reference of the whole pattern, and the same bits on every rank.
 */
class CpuFusedAllReduceTest {
  private static final List<Algorithm> ALGORITHMS =
      List.of(
          Algorithm.ONESHOT,
          Algorithm.TWOSHOT,
          Algorithm.RING,
          Algorithm.NCCL,
          Algorithm.HIERARCHICAL);

  /** Hidden sizes that are no power of two; token counts below and above the world size. */
  private static final int[][] SHAPES = {{1, 40}, {13, 24}};

  /** Large enough that some outputs saturate at ±448 · scale, small enough for subnormals. */
  private static final float FP8_SCALE = 0.004f;

  record Case(
      AllReducePattern pattern,
      DType dtype,
      Algorithm algorithm,
      boolean fp32Accumulate,
      int tokens,
      int hiddenSize) {

    NormEpilogue epilogue() {
      return new NormEpilogue(
          pattern, hiddenSize, NormEpilogue.DEFAULT_EPSILON, FP8_SCALE, fp32Accumulate);
    }

    int elements() {
      return tokens * hiddenSize;
    }
  }

  /** The outputs of one call on one rank. */
  record Outputs(byte[] residualOut, byte[] output) {}

  @ParameterizedTest(name = "world of {0}")
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
  void everyPatternDtypeAndAlgorithmMatchesTheFloat64ReferenceWithIdenticalBitsOnAllRanks(
      int worldSize) {
    List<Case> cases = new ArrayList<>();
    for (AllReducePattern pattern : AllReducePattern.values()) {
      if (!pattern.normalizes()) {
        continue; // the plain all-reduce is CpuAllReduceTest's
      }
      for (DType dtype : DType.values()) {
        for (Algorithm algorithm : ALGORITHMS) {
          for (boolean fp32Accumulate : new boolean[] {true, false}) {
            for (int[] shape : SHAPES) {
              cases.add(new Case(pattern, dtype, algorithm, fp32Accumulate, shape[0], shape[1]));
            }
          }
        }
      }
    }
    try (CpuWorld world = CpuWorld.start(worldSize, CpuAllReduceTest.CONFIG)) {
      List<List<Outputs>> outputs = world.onEveryRank(rank -> runAll(rank, cases));
      for (int i = 0; i < cases.size(); i++) {
        Case c = cases.get(i);
        for (int rank = 1; rank < worldSize; rank++) {
          assertThat(outputs.get(rank).get(i).residualOut())
              .as("%s: rank %d's residual bits against rank 0's", c, rank)
              .isEqualTo(outputs.get(0).get(i).residualOut());
          assertThat(outputs.get(rank).get(i).output())
              .as("%s: rank %d's output bits against rank 0's", c, rank)
              .isEqualTo(outputs.get(0).get(i).output());
        }
        assertMatchesReference(c, i, worldSize, outputs.get(0).get(i));
      }
    }
  }

  @Test
  void theResidualIsNeverUpdatedInPlaceBecauseUnfusedAlgorithmsSumIntoIt() {
    try (CpuWorld world = CpuWorld.start(1, CpuAllReduceTest.CONFIG)) {
      CpuWorld.Rank rank = world.rank(0);
      NormEpilogue epilogue =
          new NormEpilogue(AllReducePattern.ALLREDUCE_RESIDUAL_RMS_NORM, 8, 1e-6f, 1f, true);
      try (DeviceBuffer buffer = rank.device().allocate(64)) {
        FusedBuffers sameResidual = new FusedBuffers(buffer, buffer, buffer, buffer, buffer);
        assertThatThrownBy(
                () ->
                    rank.communicator()
                        .allReduceResidualRmsNorm(
                            Algorithm.ONESHOT,
                            sameResidual,
                            1,
                            DType.BF16,
                            epilogue,
                            rank.device().defaultStream()))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("residualOut must be a buffer other than residualIn");
      }
    }
  }

  @Test
  void aCallBeyondTheStagingBufferIsRefusedWithTheReasonSoASweepCanReportItNotMeasured() {
    // 24 tokens x 64 bf16 = 3 KiB of input; two-shot also stages its 3 KiB of output rows.
    try (CpuWorld world = CpuWorld.start(2, CpuAllReduceTest.CONFIG.withStagingBytes(4096))) {
      CpuCommunicator communicator = world.rank(0).communicator();
      NormEpilogue epilogue =
          new NormEpilogue(AllReducePattern.ALLREDUCE_RESIDUAL_RMS_NORM, 64, 1e-6f, 1f, true);

      assertThat(communicator.fusedRefusal(Algorithm.ONESHOT, 24, DType.BF16, epilogue)).isEmpty();
      assertThat(communicator.fusedRefusal(Algorithm.RING, 24, DType.BF16, epilogue)).isEmpty();
      assertThat(communicator.fusedRefusal(Algorithm.TWOSHOT, 24, DType.BF16, epilogue))
          .hasValue(
              "twoshot stages 6144 bytes per rank, more than its staging buffer of 4096 bytes");
    }
  }

  private static List<Outputs> runAll(CpuWorld.Rank rank, List<Case> cases) {
    List<DeviceBuffer> owned = new ArrayList<>();
    List<FusedBuffers> buffers = new ArrayList<>();
    for (int i = 0; i < cases.size(); i++) {
      Case c = cases.get(i);
      DeviceBuffer input =
          RankData.upload(rank.device(), c.dtype(), c.elements(), RankData.seed(i, rank.rank()));
      DeviceBuffer residual =
          RankData.upload(rank.device(), c.dtype(), c.elements(), residualSeed(i));
      DeviceBuffer gamma = RankData.upload(rank.device(), c.dtype(), c.hiddenSize(), gammaSeed(i));
      DeviceBuffer residualOut = rank.device().allocate((long) c.elements() * c.dtype().bytes());
      DeviceBuffer output =
          rank.device().allocate((long) c.elements() * c.epilogue().outputElementBytes(c.dtype()));
      owned.addAll(List.of(input, residual, gamma, residualOut, output));
      buffers.add(new FusedBuffers(input, residual, gamma, residualOut, output));
    }
    // All calls are queued back to back before any result is read.
    for (int i = 0; i < cases.size(); i++) {
      Case c = cases.get(i);
      rank.communicator()
          .allReduceResidualRmsNorm(
              c.algorithm(),
              buffers.get(i),
              c.tokens(),
              c.dtype(),
              c.epilogue(),
              rank.device().defaultStream());
    }
    List<Outputs> outputs = new ArrayList<>();
    for (FusedBuffers b : buffers) {
      outputs.add(
          new Outputs(
              RankData.download(rank.device(), b.residualOut()),
              RankData.download(rank.device(), b.output())));
    }
    owned.forEach(DeviceBuffer::close);
    return outputs;
  }

  private static long residualSeed(int caseIndex) {
    return RankData.seed(caseIndex, 1000);
  }

  private static long gammaSeed(int caseIndex) {
    return RankData.seed(caseIndex, 2000);
  }

  private static void assertMatchesReference(Case c, int caseIndex, int worldSize, Outputs got) {
    int hidden = c.hiddenSize();
    boolean sumRounded = !c.fp32Accumulate() || !directAlgorithm(c.algorithm(), worldSize);
    ResidualRmsNormReference reference =
        new ResidualRmsNormReference(
            c.dtype(), worldSize, hidden, NormEpilogue.DEFAULT_EPSILON, sumRounded);
    float[] residualOut = RankData.decode(got.residualOut(), c.dtype());
    float[] output =
        c.pattern().quantizesToFp8()
            ? dequantize(got.output())
            : RankData.decode(got.output(), c.dtype());
    float[] gamma = RankData.values(c.dtype(), hidden, gammaSeed(caseIndex));
    float[] residual = RankData.values(c.dtype(), c.elements(), residualSeed(caseIndex));
    for (int row = 0; row < c.tokens(); row++) {
      int first = row * hidden;
      reference.startRow(slice(residual, first, hidden), gamma);
      for (int rank = 0; rank < worldSize; rank++) {
        float[] input = RankData.values(c.dtype(), c.elements(), RankData.seed(caseIndex, rank));
        reference.addRank(slice(input, first, hidden));
      }
      reference.finishRow();
      for (int i = 0; i < hidden; i++) {
        check(
            c,
            worldSize,
            "residual",
            row,
            i,
            residualOut[first + i],
            reference.residualOut(i),
            reference.residualOutBound(i));
        double exact =
            c.pattern().quantizesToFp8() ? reference.fp8Out(i, FP8_SCALE) : reference.out(i);
        double bound =
            c.pattern().quantizesToFp8()
                ? reference.fp8OutBound(i, FP8_SCALE)
                : reference.outBound(i);
        check(c, worldSize, "output", row, i, output[first + i], exact, bound);
      }
    }
  }

  /** The CPU backend's ring stands in for NCCL; one rank's "ring" is a copy. */
  private static boolean directAlgorithm(Algorithm algorithm, int worldSize) {
    return algorithm == Algorithm.ONESHOT || algorithm == Algorithm.TWOSHOT || worldSize == 1;
  }

  private static void check(
      Case c,
      int worldSize,
      String what,
      int row,
      int column,
      float actual,
      double exact,
      double bound) {
    if (!(Math.abs(actual - exact) <= bound)) {
      fail(
          "%s in a world of %d: %s[%d][%d] is %s, the float64 reference %s (bound %s)",
          c, worldSize, what, row, column, actual, exact, bound);
    }
  }

  private static float[] dequantize(byte[] bytes) {
    float[] values = new float[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      values[i] = Fp8E4m3.toFloat(bytes[i]) * FP8_SCALE;
    }
    return values;
  }

  private static float[] slice(float[] values, int first, int length) {
    float[] slice = new float[length];
    System.arraycopy(values, first, slice, 0, length);
    return slice;
  }
}
