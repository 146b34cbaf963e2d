package dev.gpucomm.api.v1alpha1.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class EchoedValueTest {
  @Test
  void aValueIsQuotedEscapedAndCut() {
    assertThat(EchoedValue.quoted("a\u001b[2Jb")).isEqualTo("'a\\x1b[2Jb'");
    assertThat(EchoedValue.quoted("x".repeat(100)))
        .isEqualTo("'" + "x".repeat(80) + "… (100 characters)'");
  }

  @Test
  void linesAreJoinedStrippedAndBlankOnesLeftOut() {
    assertThat(EchoedValue.onOneLine("  first \r\n\n   \n second\tpart\rthird  ", " | ", 100))
        .isEqualTo("first | second\\tpart | third");
    assertThat(EchoedValue.onOneLine("", " | ", 100)).isEmpty();
  }

  @Test
  void aLongRunOfSpacesTakesLinearTime() {
    // a job file or an environment variable may hold this; a backtracking pattern took minutes
    String hostile = "x" + " ".repeat(2_000_000) + "y\n" + " ".repeat(2_000_000) + "z";

    String line =
        assertTimeoutPreemptively(
            Duration.ofSeconds(5), () -> EchoedValue.onOneLine(hostile, " | ", 20));

    assertThat(line).startsWith("x").endsWith("(2000006 characters)");
  }
}
