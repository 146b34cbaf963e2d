package dev.gpucomm.runtime.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.DType;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The job parser follows the API server's rules (and kubectl's YAML reading), and no job file,
 * however mangled, yields more than one short line free of control characters.
 */
class HostileJobFileTest {
  private static final String VALID =
      """
      apiVersion: gpucomm.dev/v1alpha1
      kind: CommJob
      metadata:
        name: ar-tp4
        labels:
          team: comms
      spec:
        worldSize: 4
        ranksPerPod: 4
        workload:
          kind: benchmark
          benchmark:
            dtype: bf16
            tokens: [32, 64]
      """;

  private final JobLoader loader = new JobLoader();

  @Test
  void anEnumPaddedWithWhiteSpaceIsRefusedAsTheApiServerDoes() {
    assertThatThrownBy(() -> loader.load(VALID.replace("dtype: bf16", "dtype: \"bf16 \""), "x"))
        .hasMessage(
            "x: spec.workload.benchmark.dtype: unknown value 'bf16 ' (expected bf16, fp16, fp32)");
  }

  @Test
  void anOutlierThresholdThatIsNotANumberIsRefusedAsTheCrdsBoundsWould() {
    assertThatThrownBy(
            () ->
                loader.load(
                    VALID.replace(
                        "dtype: bf16", "dtype: bf16\n      outlierThresholdPercent: .nan"),
                    "x"))
        .hasMessage(
            "x: spec.workload.benchmark.outlierThresholdPercent: must be between 0 and 10000, got"
                + " NaN");
  }

  @Test
  void anEnumGivenByIndexIsRefused() {
    assertThatThrownBy(() -> loader.load(VALID.replace("dtype: bf16", "dtype: 0"), "x"))
        .hasMessageStartingWith("x: spec.workload.benchmark.dtype: ");
  }

  @Test
  void aQuantityWrittenAsABareNumberIsToldToBeQuoted() {
    String expect =
        VALID
            + """
              expect:
                - {collective: allreduce, bytes: 67108864, minBusBandwidthGBps: 100}
            """;

    assertThatThrownBy(() -> loader.load(expect, "x"))
        .hasMessage(
            "x: spec.expect[0].bytes: expected a string, got the number 67108864 (quote it:"
                + " \"67108864\")");
  }

  @Test
  void numbersAndBooleansAreNotStrings() {
    assertThatThrownBy(() -> loader.load(VALID.replace("team: comms", "team: 12"), "x"))
        .hasMessage(
            "x: metadata.labels.team: expected a string, got the number 12 (quote it: \"12\")");
    assertThatThrownBy(() -> loader.load(VALID.replace("team: comms", "team: true"), "x"))
        .hasMessage("x: metadata.labels.team: expected a string, got 'true'");
    assertThatThrownBy(
            () -> loader.load(VALID.replace("name: ar-tp4", "name: ar-tp4\n  namespace: 7"), "x"))
        .hasMessage("x: metadata.namespace: expected a string, got '7'");
  }

  @Test
  void aBenchmarkJobCarryingAProgramBlockIsRefused() {
    String both =
        VALID.replace(
            "    kind: benchmark\n",
            "    kind: benchmark\n    program: {name: rowParallelLinear}\n");

    assertThatThrownBy(() -> loader.load(both, "x"))
        .hasMessage("x: spec.workload.program: set but spec.workload.kind is benchmark");
  }

  @Test
  void anchorsAndAliasesAreResolvedAsKubectlDoes() {
    String aliased =
        VALID
            .replace("worldSize: 4", "worldSize: &w 4")
            .replace("ranksPerPod: 4", "ranksPerPod: *w")
            .replace("tokens: [32, 64]", "tokens: &t [32, 64]");

    LoadedJob job = loader.load(aliased, "x");

    assertThat(job.job().getSpec().getRanksPerPod()).isEqualTo(4);
    assertThat(job.job().getSpec().getWorkload().getBenchmark().getTokens())
        .containsExactly(32, 64);
  }

  @Test
  void aMergeKeyFillsWhatTheMappingLeavesOut() {
    String merged =
        VALID.replace(
            "      dtype: bf16\n      tokens: [32, 64]\n",
            "      <<: &common {dtype: fp16, tokens: [16]}\n      tokens: [32, 64]\n");

    var benchmark = loader.load(merged, "x").job().getSpec().getWorkload().getBenchmark();

    assertThat(benchmark.getDtype()).isEqualTo(DType.FP16);
    assertThat(benchmark.getTokens()).containsExactly(32, 64);
  }

  @Test
  void anUnknownAliasNamesItsPlace() {
    assertThatThrownBy(() -> loader.load(VALID.replace("ranksPerPod: 4", "ranksPerPod: *w"), "x"))
        .hasMessageStartingWith("x:9:16: malformed YAML: ")
        .hasMessageContaining("w");
  }

  @Test
  void anAliasInsideTheValueItNamesIsRefusedNotFollowedForever() {
    String selfList = VALID.replace("tokens: [32, 64]", "tokens: &t [32, *t]");
    String selfMap =
        VALID.replace("      dtype: bf16\n", "      dtype: bf16\n      x: &m {y: *m}\n");
    String selfMerge =
        VALID
            .replace("    benchmark:\n", "    benchmark: &b\n")
            .replace("      dtype: bf16\n", "      <<: *b\n      dtype: bf16\n");

    for (String looping : List.of(selfList, selfMap, selfMerge)) {
      assertThatThrownBy(() -> loader.load(looping, "x"))
          .as(looping)
          .isInstanceOf(InvalidJobException.class)
          .hasMessageStartingWith("x:")
          .hasMessageContaining("malformed YAML: an alias refers to the value that holds it");
    }
  }

  @Test
  void aBase60NumberIsTextAsKubectlReadsIt() {
    // YAML 1.1 reads 1:0 as 60; kubectl's reader keeps it a string, so 60 ranks never start
    assertThatThrownBy(() -> loader.load(VALID.replace("worldSize: 4", "worldSize: 1:0"), "x"))
        .hasMessage("x: spec.worldSize: expected an integer, got '1:0'");
  }

  @Test
  void nestedAliasesCannotExpandWithoutBound() {
    StringBuilder bomb = new StringBuilder("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for (int level = 1; level < 9; level++) {
      bomb.append("a%d: &a%d [".formatted(level, level));
      bomb.append(String.join(", ", java.util.Collections.nCopies(10, "*a" + (level - 1))));
      bomb.append("]\n");
    }
    String job = VALID.replace("kind: CommJob\n", "kind: CommJob\nx:\n  " + indent(bomb) + "\n");

    assertThatThrownBy(() -> loader.load(job, "x"))
        .isInstanceOf(InvalidJobException.class)
        .hasMessageContaining("malformed YAML");
  }

  @Test
  void oneLongStringAliasedManyTimesCannotGrowPastAJobFilesLimit() {
    StringBuilder refs = new StringBuilder("long: &long " + "x".repeat(100_000) + "\n");
    for (int i = 0; i < 20; i++) {
      refs.append("copy").append(i).append(": *long\n");
    }
    String job = VALID.replace("kind: CommJob\n", "kind: CommJob\nx:\n  " + indent(refs) + "\n");

    assertThatThrownBy(() -> loader.load(job, "x"))
        .isInstanceOf(InvalidJobException.class)
        .hasMessageContaining("aliases expand to more than 1048576 characters");
  }

  @Test
  void aPlainListOfTooManyValuesIsSaidToBeOneWithoutBlamingAliases() {
    String many = String.join(",", java.util.Collections.nCopies(200_000, "1"));
    String job = VALID.replace("kind: CommJob\n", "kind: CommJob\nx: [" + many + "]\n");

    assertThatThrownBy(() -> loader.load(job, "x"))
        .isInstanceOf(InvalidJobException.class)
        .hasMessageContaining(
            "the file holds more than 100000 values, counting what aliases repeat (a CommJob has"
                + " dozens)");
  }

  private static String indent(StringBuilder text) {
    return text.toString().strip().replace("\n", "\n  ");
  }

  @Test
  void aTabSaysWhereAndWhy() {
    assertThatThrownBy(
            () -> loader.load(VALID.replace("  ranksPerPod: 4", "\tranksPerPod: 4"), "x"))
        .hasMessage(
            "x:9:1: malformed YAML: while scanning for the next token: found character"
                + " '\\t(TAB)' that cannot start any token. (Do not use \\t(TAB) for"
                + " indentation)");
  }

  @Test
  void echoedValuesAreQuotedEscapedAndCutShort() {
    String escape = VALID.replace("name: ar-tp4", "name: \"\\e[2J\\e[31mred\"");
    String enumEscape = VALID.replace("dtype: bf16", "dtype: \"\\e[2Jx\"");
    String longName = VALID.replace("name: ar-tp4", "name: " + "a".repeat(500_000));

    assertThatThrownBy(() -> loader.load(escape, "x"))
        .hasMessageStartingWith("x: metadata.name: '\\x1b[2J\\x1b[31mred' is not a valid job name");
    assertThatThrownBy(() -> loader.load(enumEscape, "x"))
        .hasMessageStartingWith("x: spec.workload.benchmark.dtype: unknown value '\\x1b[2Jx'");
    assertThatThrownBy(() -> loader.load(longName, "x"))
        .hasMessageContaining("… (500000 characters)' is 500000 characters long")
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(400));
  }

  /**
   * A fixed-seed corpus of mangled jobs: bytes replaced by control characters, quotes and brackets,
   * lines dropped, repeated or cut. Each either loads or is refused in one line.
   */
  @Test
  void noMangledJobYieldsMoreThanOneCleanLine() {
    Random random = new Random(20261126L);
    String alphabet = "\u001b\u0007\u0000\t\r\n\"'[]{}:&*!|>-# \u202e\u2028é0";
    List<String> corpus = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      StringBuilder text = new StringBuilder(VALID);
      int edits = 1 + random.nextInt(4);
      for (int e = 0; e < edits; e++) {
        int at = random.nextInt(text.length());
        switch (random.nextInt(4)) {
          case 0 -> text.setCharAt(at, alphabet.charAt(random.nextInt(alphabet.length())));
          case 1 -> text.insert(at, alphabet.charAt(random.nextInt(alphabet.length())));
          case 2 -> text.delete(at, Math.min(text.length(), at + 1 + random.nextInt(12)));
          default -> text.insert(at, "\u001b[2J".repeat(1 + random.nextInt(3)));
        }
      }
      corpus.add(text.toString());
    }
    for (String text : corpus) {
      try {
        loader.load(text, "x.yaml");
      } catch (InvalidJobException refused) {
        assertThat(refused.lines())
            .as("refusal of %s", text)
            .allSatisfy(
                line -> {
                  assertThat(line).startsWith("x.yaml");
                  assertThat(line.codePoints().filter(Character::isISOControl)).isEmpty();
                  assertThat(line).hasSizeLessThan(600);
                });
      }
    }
  }
}
