package dev.gpucomm.runtime.heuristic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.Measurement;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TuningTableTest {
  static final long MIB = 1L << 20;

  /**
   * A synthetic sweep shaped like an NVLink host: oneshot wins to 1 MiB, twoshot from 2 to 16 MiB,
   * nccl from 32 MiB.
   */
  static List<TuningSample> sweep(int world, DType dtype) {
    long[] sizes = {MIB / 2, MIB, 2 * MIB, 4 * MIB, 16 * MIB, 32 * MIB, 64 * MIB};
    double[] nccl = {16.6, 20.1, 28.4, 41.3, 95.5, 175.1, 323.4};
    double[] oneshot = {10.2, 13.0, 30.6, 50.4, 168.7, 333.7, 656.5};
    double[] twoshot = {10.8, 13.7, 19.4, 29.3, 93.1, 176.0, 337.8};
    List<TuningSample> samples = new ArrayList<>();
    for (int i = 0; i < sizes.length; i++) {
      samples.add(new TuningSample(world, dtype, sizes[i], Algorithm.NCCL, nccl[i]));
      samples.add(new TuningSample(world, dtype, sizes[i], Algorithm.ONESHOT, oneshot[i]));
      samples.add(new TuningSample(world, dtype, sizes[i], Algorithm.TWOSHOT, twoshot[i]));
    }
    return samples;
  }

  static TuningTable h200Table() {
    return TuningTable.fromMeasurements("h200-nvlink", Collective.ALLREDUCE, sweep(4, DType.BF16));
  }

  @Test
  void rangesCollapseTheWinnersAndCrossAtTheGeometricMidpoints() {
    TuningCurve curve = h200Table().require(4, DType.BF16);

    long oneToTwo = Math.round(Math.sqrt((double) MIB * 2 * MIB)); // 1482910
    long sixteenToThirtyTwo = Math.round(Math.sqrt((double) (16 * MIB) * (32 * MIB)));
    assertThat(oneToTwo).isEqualTo(1_482_910L);
    assertThat(curve.ranges())
        .containsExactly(
            new SizeRange(MIB / 2, oneToTwo, Algorithm.ONESHOT),
            new SizeRange(oneToTwo, sixteenToThirtyTwo, Algorithm.TWOSHOT),
            new SizeRange(sixteenToThirtyTwo, 64 * MIB, Algorithm.NCCL));
    assertThat(curve.measurements()).hasSize(21);
    assertThat(curve.rangeFor(oneToTwo - 1).algorithm()).isEqualTo(Algorithm.ONESHOT);
    assertThat(curve.rangeFor(oneToTwo).algorithm()).isEqualTo(Algorithm.TWOSHOT);
  }

  @Test
  void aWinnerThatComesBackMakesItsOwnRange() {
    List<TuningSample> samples =
        List.of(
            new TuningSample(2, DType.FP32, 1024, Algorithm.ONESHOT, 5),
            new TuningSample(2, DType.FP32, 1024, Algorithm.RING, 9),
            new TuningSample(2, DType.FP32, 4096, Algorithm.ONESHOT, 12),
            new TuningSample(2, DType.FP32, 4096, Algorithm.RING, 11),
            new TuningSample(2, DType.FP32, 16384, Algorithm.ONESHOT, 20),
            new TuningSample(2, DType.FP32, 16384, Algorithm.RING, 25),
            new TuningSample(2, DType.FP32, 16384, Algorithm.AUTO, 1));

    TuningCurve curve =
        TuningTable.fromMeasurements("cpu", Collective.ALLREDUCE, samples).require(2, DType.FP32);

    assertThat(curve.ranges())
        .containsExactly(
            new SizeRange(1024, 2048, Algorithm.ONESHOT),
            new SizeRange(2048, 8192, Algorithm.RING),
            new SizeRange(8192, 16384, Algorithm.ONESHOT));
    assertThat(curve.measurements())
        .extracting(MeasuredPoint::algorithm)
        .doesNotContain(Algorithm.AUTO);
  }

  @Test
  void tiesGoToTheAlgorithmDeclaredFirst() {
    List<TuningSample> samples =
        List.of(
            new TuningSample(2, DType.BF16, 1024, Algorithm.TWOSHOT, 7),
            new TuningSample(2, DType.BF16, 1024, Algorithm.NCCL, 7));

    assertThat(
            TuningTable.fromMeasurements("t", Collective.ALLREDUCE, samples)
                .require(2, DType.BF16)
                .ranges())
        .containsExactly(new SizeRange(1024, 1024, Algorithm.NCCL));
  }

  @Test
  void adjacentSizesStillGetACrossoverBetweenThem() {
    assertThat(TuningTable.geometricMidpoint(1, 2)).isEqualTo(2);
    assertThat(TuningTable.geometricMidpoint(1000, 1001)).isEqualTo(1001);
    assertThat(TuningTable.geometricMidpoint(1024, 4096)).isEqualTo(2048);
  }

  @Test
  void duplicateSamplesAndEmptySweepsAreErrors() {
    assertThatThrownBy(
            () ->
                TuningTable.fromMeasurements(
                    "t",
                    Collective.ALLREDUCE,
                    List.of(
                        new TuningSample(2, DType.BF16, 1024, Algorithm.NCCL, 7),
                        new TuningSample(2, DType.BF16, 1024, Algorithm.NCCL, 8))))
        .hasMessageContaining("two measurements of nccl at 1024 B for world size 2");
    assertThatThrownBy(() -> TuningTable.fromMeasurements("t", Collective.ALLREDUCE, List.of()))
        .hasMessageContaining("tuning table t: no measurements");
  }

  @Test
  void curvesForSeveralWorldSizesAndDtypesSitSideBySide() {
    List<TuningSample> samples = new ArrayList<>(sweep(8, DType.BF16));
    samples.addAll(sweep(2, DType.FP16));
    samples.addAll(sweep(2, DType.BF16));

    TuningTable table = TuningTable.fromMeasurements("multi", Collective.ALLREDUCE, samples);

    assertThat(table.curves())
        .extracting(curve -> curve.worldSize() + " " + curve.dtype())
        .containsExactly("2 bf16", "2 fp16", "8 bf16");
  }

  @Test
  void mergingAddsCurvesAndTheNewerMeasurementReplacesTheOlder() {
    TuningTable old =
        TuningTable.fromMeasurements(
            "lab",
            Collective.ALLREDUCE,
            List.of(
                new TuningSample(2, DType.BF16, 1024, Algorithm.ONESHOT, 5),
                new TuningSample(4, DType.BF16, 1024, Algorithm.ONESHOT, 5)));
    TuningTable retuned =
        TuningTable.fromMeasurements(
            "lab-4",
            Collective.ALLREDUCE,
            List.of(
                new TuningSample(4, DType.BF16, 1024, Algorithm.TWOSHOT, 4),
                new TuningSample(8, DType.BF16, 1024, Algorithm.NCCL, 4)));

    TuningTable merged = old.mergedWith(retuned);

    assertThat(merged.name()).isEqualTo("lab");
    assertThat(merged.curves()).extracting(TuningCurve::worldSize).containsExactly(2, 4, 8);
    assertThat(merged.require(4, DType.BF16).ranges().getFirst().algorithm())
        .isEqualTo(Algorithm.TWOSHOT);
    TuningTable allGather = new TuningTable("ag", Collective.ALLGATHER, retuned.curves());
    assertThatThrownBy(() -> old.mergedWith(allGather))
        .hasMessageContaining("cannot merge tuning table ag (allgather) into lab (allreduce)");
  }

  @Test
  void reportsBecomeSamplesWithTheirRankingTime() {
    BenchmarkReport report =
        new BenchmarkReport(
            BenchmarkReport.SCHEMA_VERSION,
            "tune-4",
            Collective.ALLREDUCE,
            DType.BF16,
            8192,
            false,
            4,
            4,
            "cuda",
            "NVIDIA H200",
            "host",
            "vllm",
            "2025-01-01T00:00:00Z",
            List.of(
                new SizeResult(
                    1024,
                    null,
                    Algorithm.ONESHOT,
                    "r",
                    List.of(
                        new Measurement(Algorithm.ONESHOT, 9.0, 4.0, 1, 1, 0, 10),
                        new Measurement(Algorithm.NCCL, 6.0, 5.0, 1, 1, 0, 10))),
                new SizeResult(
                    4096,
                    null,
                    Algorithm.ONESHOT,
                    "r",
                    List.of(
                        new Measurement(Algorithm.ONESHOT, 9.0, null, 1, 1, 0, 10),
                        new Measurement(Algorithm.NCCL, 8.0, null, 1, 1, 0, 10)))));

    TuningCurve curve = TuningTable.fromReports("t", List.of(report)).require(4, DType.BF16);

    // Graph time where measured (4 < 5 at 1 KiB), eager otherwise (8 < 9 at 4 KiB).
    assertThat(curve.ranges())
        .containsExactly(
            new SizeRange(1024, 2048, Algorithm.ONESHOT),
            new SizeRange(2048, 4096, Algorithm.NCCL));
  }

  @Test
  void aMissingCurveNamesTheTableAndWhatItHas() {
    assertThatThrownBy(() -> h200Table().require(8, DType.FP16))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "tuning table h200-nvlink has no curve for world size 8 and dtype fp16 (it has world 4"
                + " bf16)");
  }
}
