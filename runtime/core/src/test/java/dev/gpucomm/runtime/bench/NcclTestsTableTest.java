package dev.gpucomm.runtime.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.Measurement;
import dev.gpucomm.api.v1alpha1.report.NotMeasured;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class NcclTestsTableTest {
  /**
   * nccl-tests' header lines, as its writeResultHeader prints them without per-iteration timing.
   */
  private static final List<String> NCCL_TESTS_HEADER =
      List.of(
          "#                                                              out-of-place"
              + "                       in-place          ",
          "#       size         count      type   redop    root     time   algbw   busbw  #wrong"
              + "     time   algbw   busbw  #wrong ",
          "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)        "
              + "     (us)  (GB/s)  (GB/s)         ");

  private static final String NOT_MEASURED = "N/A";

  @Test
  void anAllReduceSweepPrintsNcclTestsHeaderRowsAndFooter() {
    List<String> lines =
        NcclTestsTable.write(Fixtures.allReduceH200(), Algorithm.AUTO).lines().toList();

    int header = lines.indexOf(NCCL_TESTS_HEADER.getFirst());
    assertThat(header).as("header in:%n%s", String.join("\n", lines)).isPositive();
    assertThat(lines.subList(header, header + 3)).isEqualTo(NCCL_TESTS_HEADER);
    assertThat(lines.get(header - 1)).isEqualTo("#");
    assertThat(lines.subList(0, header)).allMatch(line -> line.startsWith("#"));
    assertThat(lines.subList(header + 3, header + 6)).noneMatch(line -> line.startsWith("#"));
    assertThat(lines.subList(header + 6, lines.size()))
        .containsExactly("# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 111.411 ", "#");
  }

  @Test
  void byDefaultEachRowIsTheAlgorithmTheHeuristicChoseAtThatSize() {
    String table = NcclTestsTable.write(Fixtures.allReduceH200(), Algorithm.AUTO);

    // 512 KiB and 1 MiB per rank chose oneshot, 4 MiB twoshot (see Fixtures)
    assertThat(rows(table))
        .containsExactly(
            new String[] {
              "524288",
              "262144",
              "bfloat16",
              "sum",
              "-1",
              "10.00",
              "52.43",
              "78.64",
              "0",
              NOT_MEASURED,
              NOT_MEASURED,
              NOT_MEASURED,
              NOT_MEASURED
            },
            new String[] {
              "1048576",
              "524288",
              "bfloat16",
              "sum",
              "-1",
              "16.00",
              "65.54",
              "98.30",
              "0",
              NOT_MEASURED,
              NOT_MEASURED,
              NOT_MEASURED,
              NOT_MEASURED
            },
            new String[] {
              "4194304",
              "2097152",
              "bfloat16",
              "sum",
              "-1",
              "40.00",
              "104.86",
              "157.29",
              "0",
              NOT_MEASURED,
              NOT_MEASURED,
              NOT_MEASURED,
              NOT_MEASURED
            });
    assertThat(table)
        .contains(
            "# algorithm auto (heuristic trtllm): oneshot at 524288 to 1048576 B,"
                + " twoshot at 4194304 B\n")
        .contains("# N/A: not measured; the in-place columns, as the job ran out of place\n");
  }

  @Test
  void aRowIsAlignedAsNcclTestsPrintsIt() {
    String table = NcclTestsTable.write(Fixtures.allReduceH200(), Algorithm.AUTO);

    assertThat(table)
        .contains(
            "      524288        262144  bfloat16     sum      -1    10.00   52.43   78.64"
                + "       0      N/A     N/A     N/A     N/A\n");
  }

  @Test
  void aChosenAlgorithmShowsItsOwnFiguresAndNotMeasuredSizesReadNA() {
    String table = NcclTestsTable.write(Fixtures.allReduceH200(), Algorithm.TWOSHOT);
    List<String[]> rows = rows(table);

    // twoshot could not run at 512 KiB (see Fixtures): the whole row is N/A
    assertThat(Arrays.copyOfRange(rows.get(0), 5, 13)).containsOnly(NOT_MEASURED);
    assertThat(Arrays.copyOfRange(rows.get(1), 5, 9))
        .containsExactly("20.00", "52.43", "78.64", "0");
    // the average is over the measured cells only: (78.64 + 157.29) / 2
    assertThat(table)
        .contains("# Avg bus bandwidth    : 117.965 \n")
        .contains("# algorithm twoshot\n");
  }

  @Test
  void anInPlaceRunFillsTheInPlaceColumns() {
    String table = NcclTestsTable.write(Fixtures.inPlaceAllReduce(), Algorithm.RING);

    assertThat(rows(table))
        .containsExactly(
            new String[] {
              "1048576",
              "262144",
              "float",
              "sum",
              "-1",
              NOT_MEASURED,
              NOT_MEASURED,
              NOT_MEASURED,
              NOT_MEASURED,
              "2000.00",
              "0.52",
              "0.52",
              "0"
            });
    assertThat(table).contains("the out-of-place columns, as the job ran in place");
  }

  @Test
  void anAllGatherPrintsTheWholeGatheredBufferAndNoReduction() {
    String table = NcclTestsTable.write(Fixtures.allGatherFp16(), Algorithm.AUTO);

    // nccl-tests' size is the gathered output of 4 ranks, its count one rank's piece
    assertThat(rows(table).getFirst())
        .startsWith("4194304", "524288", "half", "none", "-1", "50.00", "83.89", "62.91", "0");
  }

  @Test
  void aBroadcastNamesItsRoot() {
    String[] row = rows(NcclTestsTable.write(Fixtures.broadcast(), Algorithm.AUTO)).getFirst();

    assertThat(row).startsWith("65536", "32768", "bfloat16", "none", "0");
  }

  @Test
  void anAlgorithmTheReportNeverMeasuredIsRefusedNamingWhatItHas() {
    assertThatThrownBy(() -> NcclTestsTable.write(Fixtures.allReduceH200(), Algorithm.RING))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the report of 'ar-tp4' has no ring measurement (it has oneshot, twoshot)");
  }

  @Test
  void numbersAreWrittenAsCsPrintfWritesThem() {
    // references from glibc's printf, as nccl-tests' getFloatStr and %g use it
    assertThat(NcclTestsNumbers.column(0.125, 6)).isEqualTo("  0.12"); // an exact tie: to even
    assertThat(NcclTestsNumbers.column(2.675, 7)).isEqualTo("   2.67"); // 2.67499999...
    assertThat(NcclTestsNumbers.column(1234.5, 6)).isEqualTo("1234.5");
    assertThat(NcclTestsNumbers.column(123456.7, 6)).isEqualTo("123457");
    assertThat(NcclTestsNumbers.column(1234567, 6)).isEqualTo(" 1e+06");
    assertThat(NcclTestsNumbers.column(12345678.9, 7)).isEqualTo("1.2e+07");
    assertThat(NcclTestsNumbers.general(1.43)).isEqualTo("1.43");
    assertThat(NcclTestsNumbers.general(0.000012345)).isEqualTo("1.2345e-05");
    assertThat(NcclTestsNumbers.general(123456789)).isEqualTo("1.23457e+08");
    assertThat(NcclTestsNumbers.general(999999.5)).isEqualTo("1e+06");
    assertThat(NcclTestsNumbers.general(100)).isEqualTo("100");
    assertThat(NcclTestsNumbers.general(0)).isEqualTo("0");
  }

  /** The table's rows, split into their 13 cells. */
  private static List<String[]> rows(String table) {
    List<String[]> rows =
        table
            .lines()
            .filter(line -> !line.startsWith("#"))
            .map(line -> line.trim().split(" +"))
            .toList();
    assertThat(rows).allSatisfy(cells -> assertThat(cells).hasSize(13));
    return rows;
  }

  /** Reports whose figures are round enough to check by hand. */
  private static final class Fixtures {
    /**
     * 4 H200s, bf16: trtllm chose oneshot at 512 KiB and 1 MiB and twoshot at 4 MiB; twoshot could
     * not run at 512 KiB. Graph times where measured; twoshot at 4 MiB eager only.
     */
    static BenchmarkReport allReduceH200() {
      return report(
          Collective.ALLREDUCE,
          DType.BF16,
          4,
          false,
          List.of(
              size(
                  Collective.ALLREDUCE,
                  4,
                  524288,
                  Algorithm.ONESHOT,
                  List.of(measured(Collective.ALLREDUCE, 4, Algorithm.ONESHOT, 524288, 12.0, 10.0)),
                  List.of(new NotMeasured(Algorithm.TWOSHOT, "the staging buffer is too small"))),
              size(
                  Collective.ALLREDUCE,
                  4,
                  1048576,
                  Algorithm.ONESHOT,
                  List.of(
                      measured(Collective.ALLREDUCE, 4, Algorithm.ONESHOT, 1048576, 18.0, 16.0),
                      measured(Collective.ALLREDUCE, 4, Algorithm.TWOSHOT, 1048576, 22.0, 20.0)),
                  List.of()),
              size(
                  Collective.ALLREDUCE,
                  4,
                  4194304,
                  Algorithm.TWOSHOT,
                  List.of(
                      measured(Collective.ALLREDUCE, 4, Algorithm.ONESHOT, 4194304, 60.0, 55.0),
                      measured(Collective.ALLREDUCE, 4, Algorithm.TWOSHOT, 4194304, 40.0, null)),
                  List.of())));
    }

    /** CPU ring, fp32, 2 ranks, in place. */
    static BenchmarkReport inPlaceAllReduce() {
      return report(
          Collective.ALLREDUCE,
          DType.FP32,
          2,
          true,
          List.of(
              size(
                  Collective.ALLREDUCE,
                  2,
                  1048576,
                  Algorithm.RING,
                  List.of(measured(Collective.ALLREDUCE, 2, Algorithm.RING, 1048576, 2000.0, null)),
                  List.of())));
    }

    /** fp16 all-gather of 1 MiB pieces among 4 ranks. */
    static BenchmarkReport allGatherFp16() {
      return report(
          Collective.ALLGATHER,
          DType.FP16,
          4,
          false,
          List.of(
              size(
                  Collective.ALLGATHER,
                  4,
                  1048576,
                  Algorithm.NCCL,
                  List.of(measured(Collective.ALLGATHER, 4, Algorithm.NCCL, 1048576, 50.0, null)),
                  List.of())));
    }

    static BenchmarkReport broadcast() {
      return report(
          Collective.BROADCAST,
          DType.BF16,
          2,
          false,
          List.of(
              size(
                  Collective.BROADCAST,
                  2,
                  65536,
                  Algorithm.NCCL,
                  List.of(measured(Collective.BROADCAST, 2, Algorithm.NCCL, 65536, 8.0, null)),
                  List.of())));
    }

    /** Figures as the sweep computes them: bandwidths from nccl-tests' size and the shown time. */
    static Measurement measured(
        Collective collective,
        int worldSize,
        Algorithm algorithm,
        long bytes,
        double eager,
        Double graph) {
      CollectiveShape shape = new CollectiveShape(collective, bytes, worldSize);
      double micros = graph != null ? graph : eager;
      double algBandwidth = shape.algorithmBytes() / micros / 1e3;
      return new Measurement(
          algorithm, eager, graph, algBandwidth, algBandwidth * shape.busFactor(), 1e-3, 200);
    }

    static SizeResult size(
        Collective collective,
        int worldSize,
        long bytes,
        Algorithm chosen,
        List<Measurement> measurements,
        List<NotMeasured> notMeasured) {
      return new SizeResult(bytes, null, chosen, "fixture", measurements, notMeasured);
    }

    static BenchmarkReport report(
        Collective collective,
        DType dtype,
        int worldSize,
        boolean inPlace,
        List<SizeResult> sizes) {
      return new BenchmarkReport(
          BenchmarkReport.SCHEMA_VERSION,
          "ar-tp4",
          collective,
          dtype,
          8192,
          inPlace,
          worldSize,
          worldSize,
          "cuda",
          "NVIDIA H200",
          "gpu-node-1",
          "trtllm",
          "2026-11-26T10:00:00Z",
          sizes);
    }
  }
}
