package dev.gpucomm.api.v1alpha1.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gpucomm.api.v1alpha1.Algorithm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportJsonTest {
  @TempDir Path folder;

  @Test
  void aBenchmarkReportReadsBackEqual() {
    BenchmarkReport report = Reports.h200();

    String json = ReportJson.write(report);

    assertThat(ReportJson.parse(json, "report.json")).isEqualTo(report);
  }

  @Test
  void fieldsAreStableVersionedAndComplete() {
    String json = ReportJson.write(Reports.h200());

    assertThat(json)
        .startsWith(
            "{\n  \"schemaVersion\" : 1,\n  \"kind\" : \"benchmark\",\n  \"job\" : \"ar-tp4\","
                + "\n  \"collective\" : \"allreduce\",\n  \"dtype\" : \"bf16\",")
        .contains(
            "\"algorithm\" : \"twoshot\"",
            "\"graphMicros\" : null",
            "\"chosen\" : \"oneshot\"",
            "\"chosenReason\" : \"tokens 32 × hidden 8192")
        .doesNotContain("bestMicros")
        .endsWith("}\n");
  }

  @Test
  void aProgramReportReadsBackEqualWithItsKind() throws IOException {
    ProgramReport report = Reports.program();
    Path file = folder.resolve("report.json");
    Files.writeString(file, ReportJson.write(report));

    assertThat(Files.readString(file))
        .contains("\"kind\" : \"program\"", "\"pipelinedMillis\" : 2.0");
    assertThat(ReportJson.read(file)).isEqualTo(report);
    assertThatThrownBy(() -> ReportJson.readBenchmark(file))
        .hasMessage("report " + file + ": holds a program run, not a benchmark sweep");
  }

  @Test
  void aProgramReportWrittenBeforeSmPartitionsReadsAsUnpartitioned() {
    String old =
        ReportJson.write(Reports.program())
            .replaceAll("(?m)^  \"smPartition\" : .*\n", "")
            .replace("\"maxRelativeError\" : 0.0024,", "\"maxRelativeError\" : 0.0024");

    ProgramReport report = (ProgramReport) ReportJson.parse(old, "old.json");

    assertThat(old).doesNotContain("smPartition");
    assertThat(report.smPartition()).isNull();
    assertThat(report.times()).isEqualTo(Reports.program().times());
  }

  @Test
  void aBenchmarkReportWrittenBeforeInPlaceRunsReadsAsOutOfPlace() {
    String old = ReportJson.write(Reports.h200()).replaceAll("(?m)^  \"inPlace\" : false,\n", "");

    BenchmarkReport report = (BenchmarkReport) ReportJson.parse(old, "old.json");

    assertThat(old).doesNotContain("inPlace");
    assertThat(report).isEqualTo(Reports.h200());
    assertThat(report.inPlace()).isFalse();
  }

  @Test
  void aBenchmarkReportWrittenBeforeNotMeasuredSizesReadsAsEveryAlgorithmRun() {
    String current = ReportJson.write(Reports.h200());
    String old = current.replaceAll(",\\s*\"notMeasured\" : \\[ \\]", "");

    BenchmarkReport report = (BenchmarkReport) ReportJson.parse(old, "old.json");

    assertThat(current).contains("\"notMeasured\" : [ ]");
    assertThat(old).doesNotContain("notMeasured");
    assertThat(report).isEqualTo(Reports.h200());
  }

  @Test
  void anAlgorithmThatCouldNotRunAtASizeReadsBackWithItsReason() {
    BenchmarkReport h200 = Reports.h200();
    SizeResult first = h200.sizes().getFirst();
    SizeResult skipped =
        new SizeResult(
            first.bytes(),
            first.tokens(),
            first.chosen(),
            first.chosenReason(),
            first.measurements(),
            List.of(new NotMeasured(Algorithm.AUTO, "rank 1: cannot allocate 4 GiB")));
    List<SizeResult> sizes = new ArrayList<>(h200.sizes());
    sizes.set(0, skipped);
    String json =
        ReportJson.write(h200).replaceFirst("\"notMeasured\" : \\[ \\]", notMeasuredJson());

    BenchmarkReport report = (BenchmarkReport) ReportJson.parse(json, "report.json");

    assertThat(report.sizes().getFirst().notMeasuredReason(Algorithm.AUTO))
        .hasValue("rank 1: cannot allocate 4 GiB");
    assertThat(report.sizes()).isEqualTo(sizes);
  }

  private static String notMeasuredJson() {
    return "\"notMeasured\" : [ {\"algorithm\" : \"auto\", \"reason\" : \"rank 1: cannot allocate 4"
        + " GiB\"} ]";
  }

  @Test
  void withoutAKindTheFieldsTellWhichReportItIs() {
    String benchmark =
        ReportJson.write(Reports.h200()).replace("  \"kind\" : \"benchmark\",\n", "");
    String program = ReportJson.write(Reports.program()).replace("  \"kind\" : \"program\",\n", "");

    assertThat(benchmark).doesNotContain("kind");
    assertThat(ReportJson.parse(benchmark, "r.json")).isEqualTo(Reports.h200());
    assertThat(ReportJson.parse(program, "r.json")).isEqualTo(Reports.program());
    assertThatThrownBy(() -> ReportJson.parse("{\"schemaVersion\": 1}", "r.json"))
        .hasMessage(
            "report r.json: field kind: missing, and neither sizes (a benchmark) nor program is"
                + " there");
  }

  @Test
  void errorsNameTheSourceAndTheField() {
    String json = ReportJson.write(Reports.h200());

    assertThatThrownBy(
            () -> ReportJson.parse(json.replaceFirst("\"twoshot\"", "\"threeshot\""), "r.json"))
        .hasMessageStartingWith(
            "report r.json: field sizes[0].measurements[2].algorithm: unknown value 'threeshot'"
                + " (expected one of auto, nccl, oneshot, twoshot, ring, hierarchical, copyengine)");
    assertThatThrownBy(
            () -> ReportJson.parse(json.replaceFirst("\"eagerMicros\" : 41.9,", ""), "r.json"))
        .hasMessage("report r.json: field sizes[0].measurements[0].eagerMicros: missing");
    assertThatThrownBy(
            () ->
                ReportJson.parse(
                    json.replace("\"schemaVersion\" : 1", "\"schemaVersion\" : 7"), "r.json"))
        .hasMessage(
            "report r.json: field schemaVersion: version 7 is not one this gpucomm reads (1 to 1)");
    assertThatThrownBy(
            () ->
                ReportJson.parse(
                    json.replace("\"kind\" : \"benchmark\"", "\"kind\" : \"tune\""), "r.json"))
        .hasMessage(
            "report r.json: field kind: unknown value 'tune' (expected benchmark, program or fabric)");
    assertThatThrownBy(() -> ReportJson.parse("{\"schemaVersion\": 1,", "r.json"))
        .hasMessageStartingWith("report r.json: not valid JSON at line 1");
    assertThatThrownBy(() -> ReportJson.parse("{\"sizes\": []}", "r.json"))
        .hasMessage("report r.json: field schemaVersion: missing or not a whole number");
  }

  @Test
  void whatTheRenderersRelyOnIsRefusedNamingTheFieldNotLeftToFailInThem() {
    String json = ReportJson.write(Reports.h200());

    assertThat(problemOf(json.replace("\"collective\" : \"allreduce\"", "\"collective\" : null")))
        .isEqualTo("report r.json: field collective: missing");
    assertThat(problemOf(json.replaceFirst("\"algorithm\" : \"nccl\"", "\"algorithm\" : null")))
        .isEqualTo("report r.json: field sizes[0].measurements[0].algorithm: missing");
    assertThat(problemOf(json.replaceFirst("\"sizes\" : \\[ \\{", "\"sizes\" : [ null, {")))
        .isEqualTo("report r.json: field sizes[0]: null where a value belongs");
    assertThat(problemOf(withFirstMeasurementsAnObject(json)))
        .isEqualTo("report r.json: field sizes[0].measurements: not a list");
    assertThat(problemOf(json.replaceFirst("\"worldSize\" : \\d+", "\"worldSize\" : -1")))
        .isEqualTo("report r.json: field worldSize: -1 is below 1");
    assertThat(problemOf(json.replaceFirst("\"eagerMicros\" : 41.9", "\"eagerMicros\" : 1e400")))
        .isEqualTo(
            "report r.json: field sizes[0].measurements[0].eagerMicros: not a finite number");
  }

  @Test
  void aFigureWrittenAsTextIsNotANumberEvenWhenJacksonWouldReadIt() {
    String json = ReportJson.write(Reports.h200());

    assertThat(problemOf(json.replaceFirst("\"eagerMicros\" : 41.9", "\"eagerMicros\" : \"NaN\"")))
        .isEqualTo(
            "report r.json: field sizes[0].measurements[0].eagerMicros: \"NaN\" is not a number");
    assertThat(problemOf(json.replaceFirst("\"eagerMicros\" : 41.9", "\"eagerMicros\" : \"41.9\"")))
        .isEqualTo(
            "report r.json: field sizes[0].measurements[0].eagerMicros: \"41.9\" is not a number");
    assertThat(problemOf(json.replaceFirst("\"worldSize\" : (\\d+)", "\"worldSize\" : \"$1\"")))
        .startsWith("report r.json: field worldSize: ");
  }

  @Test
  void aFigureThatIsNoFiniteNumberIsNeverWrittenAsText() {
    // a time of zero would make an infinite bandwidth, which Jackson writes as "Infinity"
    Measurement infinite =
        new Measurement(Algorithm.RING, 0.0, null, Double.POSITIVE_INFINITY, 0.0, 0.0, 10);
    BenchmarkReport report =
        Reports.report(
            List.of(new SizeResult(4096, null, Algorithm.RING, "ring", List.of(infinite))),
            "cpu",
            null);

    assertThatThrownBy(() -> ReportJson.write(report))
        .isInstanceOf(ReportFormatException.class)
        .hasMessage(
            "report of job ar-tp4: field sizes[0].measurements[0].algBandwidthGBps: not a finite"
                + " number");
  }

  @Test
  void textAfterTheReportOrAFieldTwiceIsNotReadPastSilently() {
    String json = ReportJson.write(Reports.h200());

    assertThat(problemOf(json + "{\"x\": 1}"))
        .startsWith("report r.json: not valid JSON at line")
        .doesNotContain("enable", "`");
    assertThat(
            problemOf(
                json.replaceFirst(
                    "\"worldSize\" : \\d+,", "\"worldSize\" : 2, \"worldSize\" : 8,")))
        .startsWith("report r.json: not valid JSON at line")
        .contains("Duplicate field 'worldSize'");
    assertThat(problemOf("{\"schemaVersion\": NaN}"))
        .startsWith("report r.json: not valid JSON at line 1")
        .doesNotContain("enable", "`");
  }

  /** {@code json} with its first size's measurements an object, as a hand-edited file might. */
  private static String withFirstMeasurementsAnObject(String json) {
    try {
      ObjectMapper mapper = new ObjectMapper();
      ObjectNode root = (ObjectNode) mapper.readTree(json);
      ((ObjectNode) root.get("sizes").get(0)).putObject("measurements").put("x", 1);
      return mapper.writeValueAsString(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void jacksonsAdviceIsLeftOutButANameFromTheFileIsKeptWhole() {
    assertThat(
            JsonSyntax.plain(
                "Non-standard token 'NaN': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to"
                    + " allow"))
        .isEqualTo("Non-standard token 'NaN'");
    assertThat(
            JsonSyntax.plain(
                "Trailing token (of type START_OBJECT) found after value (bound as"
                    + " `com.fasterxml.jackson.databind.JsonNode`): not allowed as per"
                    + " `DeserializationFeature.FAIL_ON_TRAILING_TOKENS`"))
        .isEqualTo("Trailing token (of type START_OBJECT) found after value");
    assertThat(JsonSyntax.plain("Duplicate field 'a (b`c)'"))
        .isEqualTo("Duplicate field 'a (b`c)'");
    assertThat(JsonSyntax.plain("Duplicate field '(set `x` to allow)'"))
        .isEqualTo("Duplicate field '(set `x` to allow)'");
  }

  private static String problemOf(String json) {
    try {
      ReportJson.parse(json, "r.json");
    } catch (ReportFormatException e) {
      return e.getMessage();
    }
    throw new AssertionError("read without a problem: " + json);
  }

  @Test
  void aMissingFileIsNamed() {
    Path missing = folder.resolve("none.json");

    assertThatThrownBy(() -> ReportJson.read(missing))
        .hasMessage("report " + missing + ": cannot read it (NoSuchFileException)");
  }
}
