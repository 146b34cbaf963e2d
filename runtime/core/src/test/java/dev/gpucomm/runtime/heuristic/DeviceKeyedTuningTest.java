package dev.gpucomm.runtime.heuristic;

import static dev.gpucomm.runtime.heuristic.Queries.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.report.Reports;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Tuning curves carry the device model they were measured on, and measured reads only the job's
 * model's: where an H100's crossovers fall says nothing of an H200's.
 */
class DeviceKeyedTuningTest {
  private static final long MIB = 1L << 20;
  private static final String H100 = "NVIDIA H100 80GB HBM3";
  private static final String H200 = "NVIDIA H200";

  /**
   * World 2 on one pod, where twoshot overtakes oneshot at 4 MiB on the H200 and never on the H100.
   */
  private static TuningTable tunedOn(String device) {
    boolean h200 = device.equals(H200);
    return TuningTable.fromMeasurements(
        "cluster",
        Collective.ALLREDUCE,
        List.of(
            sample(MIB, Algorithm.ONESHOT, 10, device),
            sample(MIB, Algorithm.TWOSHOT, 14, device),
            sample(16 * MIB, Algorithm.ONESHOT, 80, device),
            sample(16 * MIB, Algorithm.TWOSHOT, h200 ? 60 : 95, device)));
  }

  private static TuningSample sample(
      long bytes, Algorithm algorithm, double micros, String device) {
    return new TuningSample(2, DType.BF16, bytes, algorithm, micros, 2, device);
  }

  private static TuningTable unstamped() {
    return TuningTable.fromMeasurements(
        "older",
        Collective.ALLREDUCE,
        List.of(
            new TuningSample(2, DType.BF16, MIB, Algorithm.NCCL, 9, 2),
            new TuningSample(2, DType.BF16, MIB, Algorithm.ONESHOT, 12, 2)));
  }

  @Test
  void aTableTunedOnTwoModelsServesEachItsOwnCrossovers() {
    TuningTable both = tunedOn(H100).mergedWith(tunedOn(H200));

    Decision onH200 =
        new MeasuredHeuristic(both, Collective.ALLREDUCE, 2, DType.BF16, H200)
            .choose(bytes(16 * MIB, 2));
    Decision onH100 =
        new MeasuredHeuristic(both, Collective.ALLREDUCE, 2, DType.BF16, H100)
            .choose(bytes(16 * MIB, 2));

    assertThat(both.curves()).hasSize(2);
    assertThat(onH200.algorithm()).isEqualTo(Algorithm.TWOSHOT);
    assertThat(onH200.reason()).contains("(world 2, 1 pod × 2 ranks, bf16, NVIDIA H200)");
    assertThat(onH100.algorithm()).isEqualTo(Algorithm.ONESHOT);
    assertThat(onH100.reason()).contains("bf16, NVIDIA H100 80GB HBM3)");
  }

  @Test
  void aJobOnAModelTheTableNeverMeasuredIsRefusedNamingBoth() {
    assertThatThrownBy(
            () -> new MeasuredHeuristic(tunedOn(H100), Collective.ALLREDUCE, 2, DType.BF16, H200))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "tuning table cluster has no curve measured on NVIDIA H200 (it measured NVIDIA H100"
                + " 80GB HBM3); run gpucomm tune on this hardware, or name another heuristic");
  }

  @Test
  void aCurveOfTheJobOnlyAnotherModelMeasuredIsRefusedSayingWhere() {
    TuningTable world4OnH200 =
        TuningTable.fromMeasurements(
            "cluster",
            Collective.ALLREDUCE,
            List.of(new TuningSample(4, DType.BF16, MIB, Algorithm.NCCL, 20, 4, H200)));
    TuningTable table = tunedOn(H100).mergedWith(world4OnH200);

    assertThatThrownBy(
            () -> new MeasuredHeuristic(table, Collective.ALLREDUCE, 2, DType.BF16, H200))
        .hasMessage(
            "tuning table cluster has no curve for world size 2 and dtype bf16 measured on NVIDIA"
                + " H200 (it measured them on NVIDIA H100 80GB HBM3); run gpucomm tune on this"
                + " hardware, or name another heuristic");
  }

  @Test
  void anOlderTableWithoutDevicesSpeaksForAnyModelUntilItsModelIsTuned() {
    Decision fromOlder =
        new MeasuredHeuristic(unstamped(), Collective.ALLREDUCE, 2, DType.BF16, H200)
            .choose(bytes(MIB, 2));
    TuningTable retuned = unstamped().mergedWith(tunedOn(H200));
    Decision fromRetuned =
        new MeasuredHeuristic(retuned, Collective.ALLREDUCE, 2, DType.BF16, H200)
            .choose(bytes(MIB, 2));
    Decision onAnotherModel =
        new MeasuredHeuristic(retuned, Collective.ALLREDUCE, 2, DType.BF16, H100)
            .choose(bytes(MIB, 2));

    assertThat(fromOlder.algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(retuned.curves()).hasSize(2);
    assertThat(fromRetuned.algorithm()).isEqualTo(Algorithm.ONESHOT);
    assertThat(onAnotherModel.algorithm()).isEqualTo(Algorithm.NCCL);
  }

  @Test
  void retuningAModelReplacesOnlyThatModelsCurve() {
    TuningTable first = tunedOn(H100).mergedWith(tunedOn(H200));
    TuningTable faster =
        TuningTable.fromMeasurements(
            "cluster",
            Collective.ALLREDUCE,
            List.of(
                sample(MIB, Algorithm.ONESHOT, 30, H200),
                sample(MIB, Algorithm.TWOSHOT, 20, H200)));

    TuningTable merged = first.mergedWith(faster);

    assertThat(merged.curves()).extracting(TuningCurve::device).containsExactly(H100, H200);
    assertThat(merged.measuredOn(H200).curves().getFirst().ranges())
        .extracting(SizeRange::algorithm)
        .containsExactly(Algorithm.TWOSHOT);
    assertThat(merged.measuredOn(H100).curves()).isEqualTo(tunedOn(H100).curves());
  }

  @Test
  void theJsonKeepsEachCurvesDeviceAndOnlyATableWithDevicesIsSchemaTwo() {
    TuningTable both = tunedOn(H100).mergedWith(tunedOn(H200));

    String json = TuningTableJson.write(both);
    String older = TuningTableJson.write(unstamped());

    assertThat(json).contains("\"schemaVersion\" : 2").contains("\"device\" : \"NVIDIA H200\"");
    assertThat(TuningTableJson.parse(json, "t.json")).isEqualTo(both);
    assertThat(older).contains("\"schemaVersion\" : 1").doesNotContain("device");
    assertThat(TuningTableJson.parse(older, "t.json")).isEqualTo(unstamped());
  }

  @Test
  void aBadDeviceInATableFileNamesItsField() {
    String template =
        """
        {"schemaVersion": 2, "name": "t", "collective": "allreduce",
         "curves": [{"worldSize": 2, "device": %s, "dtype": "bf16",
                     "ranges": [{"fromBytes": 1, "toBytes": 2, "algorithm": "nccl"}]}]}
        """;

    assertThatThrownBy(() -> TuningTableJson.parse(template.formatted("\"  \""), "t.json"))
        .hasMessage(
            "tuning table t.json: field curves[0].device: must not be empty (leave it out if"
                + " unknown)");
    assertThatThrownBy(() -> TuningTableJson.parse(template.formatted("7"), "t.json"))
        .hasMessage("tuning table t.json: field curves[0].device: expected a string, got 7");
    assertThatThrownBy(() -> TuningTableJson.parse(template.formatted("\"a\\nb\""), "t.json"))
        .hasMessage("tuning table t.json: field curves[0].device: must be one line of text");
    assertThatThrownBy(
            () ->
                TuningTableJson.parse(template.formatted("\"" + "x".repeat(300) + "\""), "t.json"))
        .hasMessage("tuning table t.json: field curves[0].device: at most 256 characters, got 300");
  }

  @Test
  void aReportsDeviceStampsTheCurvesTunedFromItAndTheCpuBackendsByItsKindAlone() {
    TuningTable fromGpu = TuningTable.fromReports("cluster", List.of(Reports.h200()));
    // "cpu (16 cores)" on one host is "cpu (4 cores)" in a pod limited to 4 CPUs
    TuningTable fromCpu =
        TuningTable.fromReports(
            "laptop", List.of(Reports.report(Reports.cpu().sizes(), "cpu", "cpu (16 cores)")));

    assertThat(fromGpu.curves()).extracting(TuningCurve::device).containsOnly(H200);
    assertThat(fromCpu.curves()).extracting(TuningCurve::device).containsOnly("cpu");
  }

  @Test
  void theJobsDeviceNameIsReadAsTheTableKeepsIt() {
    TuningTable onH200 = tunedOn(H200);

    assertThat(onH200.measuredOn(" NVIDIA H200 ").curves()).isEqualTo(onH200.curves());
  }

  @Test
  void aDeviceNameThatWouldBreakOrReorderTheMessageLineIsRefused() {
    for (String name :
        List.of(
            "NVIDIA\u2028H200",
            "NVIDIA \u202eH200",
            "NVIDIA\u0007H200",
            "NVIDIA \udb40\udc41H200",
            "NVIDIA \ud800H200")) {
      assertThatThrownBy(() -> TuningCurve.checkedDevice(name))
          .as(name)
          .hasMessage("device: must be one line of text");
    }
  }
}
