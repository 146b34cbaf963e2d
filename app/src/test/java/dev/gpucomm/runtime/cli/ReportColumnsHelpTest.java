package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ReportColumnsHelpTest {
  @ParameterizedTest
  @ValueSource(strings = {"bench", "run", "report"})
  void helpSaysOnceWhatEachColumnOfTheLatencyTableHolds(String command) {
    CliRun help = CliRun.of(command, "--help");

    assertThat(help.exitCode()).isZero();
    for (String column :
        new String[] {"Tensor Shape", "Tensor Size", "Best (Speedup vs B)", "Heuristic choice"}) {
      assertThat(help.out().split(Pattern.quote(column), -1))
          .as("%s in gpucomm %s --help", column, command)
          .hasSize(2);
    }
    assertThat(help.out())
        .contains("the slowest rank's is shown", "progress lines print one rank's own median")
        .contains("(+x% vs best)");
  }
}
