package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpucomm completion bash}: a script bash accepts, which completes commands and options. */
class CompletionCommandTest {
  @TempDir Path dir;
  private Path script;

  @BeforeEach
  void generateTheScript() throws IOException {
    CliRun run = CliRun.of("completion", "bash");
    assertThat(run.exitCode()).as(run.err()).isZero();
    script = Files.writeString(dir.resolve("gpucomm.bash"), run.out());
  }

  @Test
  void bashParsesTheScript() throws Exception {
    Bash check = bash("-n", script.toString());

    assertThat(check.exitCode()).as(check.output()).isZero();
  }

  @Test
  void aPrefixCompletesToTheCommandsItStarts() throws Exception {
    assertThat(complete("gpucomm", "r")).containsExactlyInAnyOrder("run", "rank", "report");
  }

  @Test
  void optionsAndTheirValuesComplete() throws Exception {
    assertThat(complete("gpucomm", "bench", "--dt")).containsExactly("--dtype");
    assertThat(complete("gpucomm", "bench", "--collective", "all"))
        .containsExactlyInAnyOrder("allreduce", "allgather");
    assertThat(complete("gpucomm", "report", "target", "--f")).containsExactly("--format");
  }

  @Test
  void anotherShellIsAUsageError() {
    CliRun run = CliRun.of("completion", "zsh");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "gpucomm completion: SHELL: unknown value 'zsh' (expected bash)"
                + System.lineSeparator());
  }

  /** What the completion function offers for {@code words}, the last being completed. */
  private List<String> complete(String... words) throws Exception {
    List<String> args = new ArrayList<>();
    args.add("-c");
    args.add(
        """
            source "$1"; shift
            COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
            _complete_gpucomm gpucomm "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
            printf '%s\\n' "${COMPREPLY[@]}"
            """);
    args.add("complete");
    args.add(script.toString());
    args.addAll(List.of(words));
    Bash completion = bash(args.toArray(String[]::new));
    assertThat(completion.exitCode()).as(completion.output()).isZero();
    return completion.output().lines().map(String::strip).filter(w -> !w.isEmpty()).toList();
  }

  private Bash bash(String... args) throws Exception {
    Path bash = Path.of("/bin/bash");
    assumeTrue(Files.isExecutable(bash), "bash is not installed here");
    List<String> command = new ArrayList<>(List.of(bash.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("bash finished").isTrue();
    return new Bash(
        process.exitValue(),
        new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  private record Bash(int exitCode, String output) {}
}
