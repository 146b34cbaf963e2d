package dev.gpucomm.runtime.heuristic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TuningTableJsonTest {
  @TempDir Path folder;

  private static final String VALID =
      """
      {"schemaVersion": 1, "name": "lab", "collective": "allreduce",
       "curves": [{"worldSize": 2, "dtype": "bf16",
                   "ranges": [{"fromBytes": 1024, "toBytes": 2048, "algorithm": "oneshot"},
                              {"fromBytes": 2048, "toBytes": 4096, "algorithm": "nccl"}],
                   "measurements": [{"bytes": 1024, "algorithm": "oneshot", "medianMicros": 5.5}]}]}
      """;

  @Test
  void aTableSurvivesTheRoundTripThroughAFile() throws IOException {
    List<TuningSample> samples = new ArrayList<>(TuningTableTest.sweep(4, DType.BF16));
    samples.addAll(TuningTableTest.sweep(8, DType.FP16));
    TuningTable table = TuningTable.fromMeasurements("h200-nvlink", Collective.ALLREDUCE, samples);
    Path file = folder.resolve("tables/h200.json");

    TuningTableJson.write(table, file);

    assertThat(TuningTableJson.read(file)).isEqualTo(table);
    assertThat(Files.readString(file))
        .startsWith("{\n  \"schemaVersion\" : 1,\n  \"name\" : \"h200-nvlink\"")
        .contains("\"algorithm\" : \"twoshot\"", "\"medianMicros\" : 19.4");
    try (var entries = Files.list(file.getParent())) {
      assertThat(entries).containsExactly(file);
    }
  }

  @Test
  void retuningOneWorldSizeKeepsTheOthersInTheFile() throws IOException {
    Path file = folder.resolve("lab.json");
    List<TuningSample> firstSweep = new ArrayList<>(TuningTableTest.sweep(2, DType.BF16));
    firstSweep.addAll(TuningTableTest.sweep(4, DType.BF16));
    TuningTableJson.write(
        TuningTable.fromMeasurements("lab", Collective.ALLREDUCE, firstSweep), file);
    TuningTable retuned =
        TuningTable.fromMeasurements(
            "lab",
            Collective.ALLREDUCE,
            List.of(new TuningSample(4, DType.BF16, 1024, Algorithm.NCCL, 3.0)));

    TuningTable written = TuningTableJson.writeMerged(retuned, file);

    assertThat(TuningTableJson.read(file)).isEqualTo(written);
    assertThat(written.curves()).extracting(TuningCurve::worldSize).containsExactly(2, 4);
    assertThat(written.require(4, DType.BF16).measurements()).hasSize(1);
    assertThat(written.require(2, DType.BF16).measurements()).hasSize(21);
  }

  @Test
  void aHandWrittenTableReads() {
    TuningTable table = TuningTableJson.parse(VALID, "lab.json");

    assertThat(table.require(2, DType.BF16).rangeFor(3000).algorithm().wireName())
        .isEqualTo("nccl");
    String withoutMeasurements = VALID.replaceAll(",\\s*\"measurements\": \\[[^]]*]", "");
    assertThat(withoutMeasurements).doesNotContain("measurements");
    assertThat(
            TuningTableJson.parse(withoutMeasurements, "x").require(2, DType.BF16).measurements())
        .isEmpty();
  }

  @ParameterizedTest(name = "{2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "\"schemaVersion\": 1, | | field schemaVersion: missing",
        "\"schemaVersion\": 1, | \"schemaVersion\": 3, | field schemaVersion: version 3 is not one this gpucomm reads (1 to 2)",
        "\"collective\": \"allreduce\" | \"collective\": \"alltoall\" | field collective: unknown value 'alltoall'",
        "\"algorithm\": \"nccl\" | \"algorithm\": \"fast\" | field curves[0].ranges[1].algorithm: unknown value 'fast' (expected one of nccl, oneshot, twoshot, ring, hierarchical, copyengine)",
        "\"algorithm\": \"nccl\" | \"algorithm\": \"auto\" | field curves[0].ranges[1].algorithm: auto is not a measured algorithm",
        "{\"fromBytes\": 2048, \"toBytes\": 4096 | {\"fromBytes\": 3000, \"toBytes\": 4096 | field curves[0].ranges[1].fromBytes: 3000 must equal ranges[0].toBytes 2048",
        "\"worldSize\": 2 | \"worldsize\": 2 | field curves[0].worldsize: unknown field",
        "\"worldSize\": 2 | \"worldSize\": \"two\" | field curves[0].worldSize: expected a whole number, got \"two\"",
        "\"worldSize\": 2 | \"worldSize\": 0 | field curves[0].worldSize: must be at least 1",
        "\"medianMicros\": 5.5 | \"medianMicros\": -1 | field curves[0].measurements[0].medianMicros: must be a positive number",
        "\"dtype\": \"bf16\" | \"dtype\": \"int8\" | field curves[0].dtype: unknown value 'int8' (expected one of bf16, fp16, fp32)",
        "\"toBytes\": 2048 | \"toBytes\": 512 | field curves[0].ranges[0].toBytes: 512 is below fromBytes 1024",
      })
  void malformedTablesNameTheFileAndTheField(String original, String replacement, String error) {
    String json = VALID.replace(original, replacement == null ? "" : replacement);

    assertThatThrownBy(() -> TuningTableJson.parse(json, "lab.json"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("tuning table lab.json: " + error);
  }

  @Test
  void brokenJsonSaysWhere() {
    assertThatThrownBy(
            () -> TuningTableJson.parse("{\"schemaVersion\": 1,\n  \"name\": }", "t.json"))
        .hasMessageStartingWith("tuning table t.json: not valid JSON at line 2, column");
    assertThatThrownBy(() -> TuningTableJson.parse("[1]", "t.json"))
        .hasMessage("tuning table t.json: expected a JSON object at the top level");
    assertThatThrownBy(
            () ->
                TuningTableJson.parse(
                    VALID.replace("\"curves\": [{", "\"curves\": [], \"x\": [{"), "t.json"))
        .hasMessageStartingWith("tuning table t.json: field ");
  }

  @Test
  void aMissingFileIsNamed() {
    Path missing = folder.resolve("nope.json");

    assertThatThrownBy(() -> TuningTableJson.read(missing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("tuning table " + missing + ": no such file");
  }
}
