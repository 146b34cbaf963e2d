package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's quick start, {@code gpucomm run -f examples/allreduce-sweep.yaml}, on the CPU
 * backend: what a newcomer reads first must not contradict itself.
 */
@Timeout(300)
class QuickStartIT {
  private static final Path QUICK_START = Path.of("..", "examples", "allreduce-sweep.yaml");
  private static final Pattern SPEEDUP_HEADER = Pattern.compile("Best \\(Speedup vs ([^)]+)\\)");
  private static final Pattern SPEEDUP_CELL = Pattern.compile("\\(\\d+(\\.\\d+)?x\\)");
  private static final Pattern LEGEND_ENTRY =
      Pattern.compile("<text class=\"entry\"[^>]*>([^<]*)</text>");

  @TempDir Path dir;

  @Test
  void theQuickStartOnTheCpuSaysWhatItsFiguresAreWithoutContradictingItself() throws Exception {
    Path out = dir.resolve("allreduce-sweep");

    CliRun run =
        CliRun.of("run", "-f", QUICK_START.toString(), "--device", "cpu", "--out", out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    String markdown = Files.readString(out.resolve("report.md"));
    String svg = Files.readString(out.resolve("latency.svg"));
    for (String text : List.of(run.out(), markdown, svg)) {
      assertThat(text)
          .doesNotContainIgnoringCase("CUDA-graph")
          .doesNotContainIgnoringCase("CUDA graph")
          .doesNotContain("cpu (cpu")
          .doesNotContain(" 1 ranks");
    }
    assertThat(markdown).contains("these figures show that flow, not GPU performance");
    assertThat(occurrences(markdown, "# allreduce · bf16 · world 2\n")).isEqualTo(1);
    assertThat(occurrences(run.out(), "### allreduce · bf16 · world 2")).isEqualTo(1);
    assertSpeedupsHaveTheirBaselineColumn(run.out());
    assertSpeedupsHaveTheirBaselineColumn(markdown);
    assertThat(legendEntries(svg)).last().isEqualTo("trtllm&apos;s choice");
    assertThat(legendEntries(svg).getLast()).isNotIn(algorithmNames());
  }

  /**
   * Every table that gives a speedup names its baseline, and that baseline is one of its columns.
   */
  private static void assertSpeedupsHaveTheirBaselineColumn(String text) {
    List<String> header = List.of();
    for (String line : text.lines().toList()) {
      if (line.startsWith("| Tensor Shape |")) {
        header = cells(line);
        Matcher speedup = SPEEDUP_HEADER.matcher(line);
        if (speedup.find()) {
          String baseline = speedup.group(1).toLowerCase(Locale.ROOT);
          assertThat(header).as("columns of %s", line).contains(baseline);
        }
      } else if (line.startsWith("| ") && !header.isEmpty() && SPEEDUP_CELL.matcher(line).find()) {
        assertThat(String.join("|", header)).as("header over %s", line).contains("Speedup vs");
      } else if (!line.startsWith("|")) {
        header = List.of();
      }
    }
  }

  private static List<String> cells(String row) {
    return Arrays.stream(row.split("\\|")).map(String::strip).filter(s -> !s.isEmpty()).toList();
  }

  private static List<String> legendEntries(String svg) {
    return LEGEND_ENTRY.matcher(svg).results().map(match -> match.group(1)).toList();
  }

  private static List<String> algorithmNames() {
    return Arrays.stream(Algorithm.values()).map(Algorithm::wireName).toList();
  }

  private static int occurrences(String text, String part) {
    int count = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
      count++;
    }
    return count;
  }
}
