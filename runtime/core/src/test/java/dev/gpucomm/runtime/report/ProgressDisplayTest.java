package dev.gpucomm.runtime.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProgressDisplayTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  private String printed() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void onATerminalOneLineIsRedrawnInPlace() {
    ProgressDisplay display = ProgressDisplay.terminal(out);

    display.measuring(1, 3, 512 * 1024, Algorithm.NCCL);
    display.measured(1, 3, 512 * 1024, Algorithm.NCCL, 16.6);
    display.measuring(2, 3, 1 << 20, Algorithm.ONESHOT);
    display.finish();

    String first = "size 1/3 (512 KB) · measuring nccl…";
    String second = "size 1/3 (512 KB) · last median nccl 16.6 µs";
    String third = "size 2/3 (1 MB) · measuring oneshot… · last median nccl 16.6 µs";
    assertThat(printed())
        .isEqualTo(
            "\r"
                + first
                + "\r"
                + second
                + " ".repeat(Math.max(0, first.length() - second.length()))
                + "\r"
                + third
                + System.lineSeparator());
    assertThat(printed().chars().filter(c -> c == '\n').count()).isEqualTo(1);
  }

  @Test
  void aScopedLineSaysWhichCollectiveAndDtypeItBelongsTo() {
    ProgressDisplay display = ProgressDisplay.lines(out);

    display.scope("allreduce · bf16");
    display.measured(1, 2, 16, Algorithm.RING, 12.5);
    display.scope("allgather · fp32");
    display.measured(1, 2, 16, Algorithm.RING, 8.25);
    display.scope("");
    display.measured(2, 2, 4096, Algorithm.RING, 20);

    assertThat(printed().lines())
        .containsExactly(
            "allreduce · bf16 · size 1/2 (16 B) · median ring 12.5 µs",
            "allgather · fp32 · size 1/2 (16 B) · median ring 8.25 µs",
            "size 2/2 (4 KB) · median ring 20 µs");
  }

  @Test
  void aShorterLineWipesTheRestOfALongerOne() {
    ProgressDisplay display = ProgressDisplay.terminal(out);

    display.measured(1, 1, 4096, Algorithm.TWOSHOT, 19.4);
    display.measuring(1, 1, 4096, Algorithm.ONESHOT);
    display.measured(1, 1, 4096, Algorithm.ONESHOT, 9.5);

    String[] frames = printed().split("\r", -1);
    String longer = "size 1/1 (4 KB) · measuring oneshot… · last median twoshot 19.4 µs";
    String shorter = "size 1/1 (4 KB) · last median oneshot 9.5 µs";
    assertThat(frames).hasSize(4);
    assertThat(frames[2]).isEqualTo(longer);
    assertThat(frames[3]).isEqualTo(shorter + " ".repeat(longer.length() - shorter.length()));
  }

  @Test
  void elsewhereOnePlainLinePerMeasurement() {
    ProgressDisplay display = ProgressDisplay.lines(out);

    display.measuring(1, 2, 4096, Algorithm.RING);
    display.measured(1, 2, 4096, Algorithm.RING, 120);
    display.measured(2, 2, 65536, Algorithm.RING, 1500);
    display.finish();

    assertThat(printed().lines())
        .containsExactly(
            "size 1/2 (4 KB) · median ring 120 µs", "size 2/2 (64 KB) · median ring 1.5 ms");
    assertThat(printed()).doesNotContain("\r");
  }

  @Test
  void silentPrintsNothing() {
    ProgressDisplay display = ProgressDisplay.silent();
    display.measured(1, 1, 4096, Algorithm.RING, 120);
    display.finish();

    assertThat(printed()).isEmpty();
  }

  @Test
  void withoutATerminalTheConsoleDisplayPrintsPlainLines() {
    // Tests run with output captured, never on a terminal.
    ProgressDisplay display = ProgressDisplay.forConsole(out);
    display.measured(1, 1, 4096, Algorithm.RING, 120);

    assertThat(printed())
        .isEqualTo("size 1/1 (4 KB) · median ring 120 µs" + System.lineSeparator());
  }
}
