package dev.gpucomm.api.v1alpha1.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.gpucomm.api.v1alpha1.CommJob;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CommJobValidatorTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** A job the validator accepts; each case below changes one line of it. */
  private static final String VALID =
      """
      apiVersion: gpucomm.dev/v1alpha1
      kind: CommJob
      metadata: {name: ar-tp4}
      spec:
        worldSize: 4
        ranksPerPod: 4
        device: cuda
        workload:
          kind: benchmark
          benchmark: {tokens: [32, 64], algorithms: [auto, nccl, oneshot]}
      """;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"ar-tp4", "a", "llama-70b-tp8"})
  void aValidJobHasNoProblems(String name) {
    assertThat(CommJobValidator.validate(job(VALID.replace("ar-tp4", name)))).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          {maxRestarts: 2, restartOn: [Disruption, RankFailed, Timeout]} | |
          {maxRestarts: -1}                        | spec.failurePolicy.maxRestarts       | -1 is below the minimum 0
          {maxRestarts: 101}                       | spec.failurePolicy.maxRestarts       | 101 is above the maximum 100
          {restartOn: []}                          | spec.failurePolicy.restartOn         | needs at least 1 item
          {restartOn: [Disruption, Disruption]}    | spec.failurePolicy.restartOn[1]      | 'Disruption' is listed twice
          {restartOn: [Disruption, RankFailed, Timeout, Disruption]} | spec.failurePolicy.restartOn | 4 items is above the maximum 3
          {restartOn: [null]}                      | spec.failurePolicy.restartOn[0]      | required
          """)
  void aLocalRunChecksTheFailurePolicyAsTheClusterWould(
      String policy, String field, String message) {
    List<SpecProblem> problems =
        CommJobValidator.validate(job(VALID + "  failurePolicy: " + policy + "\n"));

    if (field == null) {
      assertThat(problems).isEmpty();
    } else {
      assertThat(problems).containsExactly(new SpecProblem(field, message));
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          rowParallelLinear    | {m: 64, k: 64}            | |
          rowParallelLinear    | {m: 63, k: 64}            | spec.workload.program.shape.m | 63 is not a multiple of spec.workload.program.chunks (2)
          rowParallelLinear    | {m: 64, k: 66}            | spec.workload.program.shape.k | 66 is not a multiple of spec.worldSize (4)
          columnParallelLinear | {m: 66, n: 16, k: 32}     | spec.workload.program.shape.m | 66 is not a multiple of spec.worldSize (4)
          collectivePermute    | {m: 6, k: 8}              | spec.workload.program.shape.m | 6 is not a multiple of spec.worldSize (4)
          collectivePermute    | {k: 8}                    | |
          rowParallelLinear, chunks: 4 | {m: 6, k: 64}     | spec.workload.program.shape.m | 6 is not a multiple of spec.workload.program.chunks (4)
          rowParallelLinear, chunks: 0 | {m: 7, k: 64}     | spec.workload.program.chunks | 0 is below the minimum 1
          """)
  void aProgramWhoseShapeTheRanksCannotSplitIsRefusedBeforeAnyPod(
      String program, String shape, String field, String message) {
    List<SpecProblem> problems =
        CommJobValidator.validate(
            job(
                VALID.replace(
                    "kind: benchmark\n"
                        + "    benchmark: {tokens: [32, 64], algorithms: [auto, nccl, oneshot]}",
                    "kind: program\n    program: {name: %s, shape: %s}"
                        .formatted(program, shape))));

    if (field == null) {
      assertThat(problems).isEmpty();
    } else {
      assertThat(problems).containsExactly(new SpecProblem(field, message));
    }
  }

  @Test
  void aShapeIsNotJudgedAgainstAWorldSizeThatIsItselfWrong() {
    List<SpecProblem> problems =
        CommJobValidator.validate(
            job(
                VALID
                    .replace("worldSize: 4", "worldSize: 0")
                    .replace(
                        "kind: benchmark\n"
                            + "    benchmark: {tokens: [32, 64], algorithms: [auto, nccl, oneshot]}",
                        "kind: program\n"
                            + "    program: {name: columnParallelLinear, shape: {m: 66}}")));

    assertThat(problems).extracting(SpecProblem::fieldPath).containsExactly("spec.worldSize");
  }

  @Test
  void aFloorOrCeilingThatIsNoNumberIsSaidToBeNone() {
    CommJob rules =
        job(
            VALID.replace(
                "device: cuda",
                "device: cuda\n  expect: [{collective: allreduce, bytes: 512Ki,"
                    + " minBusBandwidthGBps: 1}, {collective: allreduce, bytes: 1Mi,"
                    + " maxLatencyMicros: -3}]"));
    // as a YAML .nan reads
    rules.getSpec().getExpect().getFirst().setMinBusBandwidthGBps(Double.NaN);

    assertThat(CommJobValidator.validate(rules))
        .containsExactly(
            new SpecProblem("spec.expect[0].minBusBandwidthGBps", "NaN is not a number"),
            new SpecProblem("spec.expect[1].maxLatencyMicros", "-3.0 is negative"));
  }

  @Test
  void aFusedFp8PatternOverWholeTokenSizesIsValid() {
    String fused =
        VALID.replace(
            "tokens: [32, 64]",
            "sizes: [16384, 32768], pattern: allreduceResidualRmsNormFp8, fp8Scale: 0.5,"
                + " fp32Accumulate: false");
    assertThat(CommJobValidator.validate(job(fused))).isEmpty();
  }

  @Test
  void accumulatingInTheElementTypeIsRefusedWhereNoFusedKernelRuns() {
    String plain = VALID.replace("tokens: [32, 64]", "tokens: [32, 64], fp32Accumulate: false");

    assertThat(CommJobValidator.validate(job(plain)))
        .containsExactly(
            new SpecProblem(
                "spec.workload.benchmark.fp32Accumulate",
                "false (summing in the element type) applies to the fused patterns only, not"
                    + " allreduce"));
    assertThat(CommJobValidator.validate(job(plain.replace("false", "true")))).isEmpty();
  }

  /** {@link #VALID} as a tune job whose tune section is {@code tune}. */
  private static String tuneJob(String tune) {
    return VALID
        .replace("kind: benchmark", "kind: tune")
        .replace("benchmark: {tokens: [32, 64], algorithms: [auto, nccl, oneshot]}", tune);
  }

  @Test
  void aFusedTuneOverTokensIsValid() {
    String tune =
        tuneJob(
            "tune: {tokens: [4, 64], algorithms: [oneshot, twoshot],"
                + " pattern: allreduceResidualRmsNorm, fp32Accumulate: false}");
    assertThat(CommJobValidator.validate(job(tune))).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          fused tune of allgather            | tune: {collective: allgather, pattern: allreduceResidualRmsNorm} | spec.workload.tune.pattern
          fp8 tune without scale, part rows  | tune: {sizes: [1024], pattern: allreduceResidualRmsNormFp8}     | spec.workload.tune.fp8Scale, spec.workload.tune.sizes[0]
          tune scale without fp8             | tune: {pattern: allreduceResidualRmsNorm, fp8Scale: 0.5}       | spec.workload.tune.fp8Scale
          """)
  void aFusedTuneIsCheckedAsAFusedBenchmarkIs(String whatIsWrong, String tune, String fieldPaths) {
    List<SpecProblem> problems = CommJobValidator.validate(job(tuneJob(tune)));

    assertThat(problems).extracting(SpecProblem::fieldPath).containsExactly(fieldPaths.split(", "));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # what is wrong            | replace                    | with                                                          | field paths of the problems
          name starts with a digit   | name: ar-tp4               | name: 1job                                                    | metadata.name
          name with a dot            | name: ar-tp4               | name: llama-3.1                                               | metadata.name
          name too long              | name: ar-tp4               | name: a234567890123456789012345678901234567890123456789012345 | metadata.name
          no world size              | worldSize: 4               | timeoutSeconds: 60                                            | spec.worldSize
          world not a multiple       | worldSize: 4               | worldSize: 6                                                  | spec.worldSize, spec.workload.benchmark.algorithms[2]
          ranksPerPod and timeout    | ranksPerPod: 4             | ranksPerPod: 17\\n  timeoutSeconds: 0                         | spec.ranksPerPod, spec.timeoutSeconds
          oneshot across pods        | ranksPerPod: 4             | ranksPerPod: 2                                                | spec.workload.benchmark.algorithms[2]
          ring on cuda               | oneshot]                   | ring]                                                         | spec.workload.benchmark.algorithms[2]
          bad token and bad size     | tokens: [32, 64]           | tokens: [32, 0, 32], sizes: [1000]                     | spec.workload.benchmark, spec.workload.benchmark.tokens[1], spec.workload.benchmark.tokens[2], spec.workload.benchmark.sizes[0]
          tokens beyond one buffer   | tokens: [32, 64]           | tokens: [1048576]                                             | spec.workload.benchmark.tokens[0]
          in place allgather oneshot | algorithms: [auto, nccl, oneshot] | collective: allgather, inPlace: true, algorithms: [oneshot] | spec.workload.benchmark.inPlace, spec.workload.benchmark.algorithms[0]
          fused pattern on allgather | algorithms: [auto, nccl, oneshot] | collective: allgather, pattern: allreduceResidualRmsNorm | spec.workload.benchmark.pattern
          fused pattern in place     | algorithms: [auto, nccl, oneshot] | pattern: allreduceResidualRmsNorm, inPlace: true, algorithms: [nccl] | spec.workload.benchmark.inPlace
          fp8 without scale          | algorithms: [auto, nccl, oneshot] | pattern: allreduceResidualRmsNormFp8 | spec.workload.benchmark.fp8Scale
          fp8 with a negative scale  | algorithms: [auto, nccl, oneshot] | pattern: allreduceResidualRmsNormFp8, fp8Scale: -1 | spec.workload.benchmark.fp8Scale
          fp8 scale without fp8      | algorithms: [auto, nccl, oneshot] | pattern: allreduceResidualRmsNorm, fp8Scale: 0.5 | spec.workload.benchmark.fp8Scale
          fp8 scale on plain         | algorithms: [auto, nccl, oneshot] | fp8Scale: 0.5, algorithms: [nccl] | spec.workload.benchmark.fp8Scale
          negative outlier threshold | algorithms: [auto, nccl, oneshot] | outlierThresholdPercent: -5, algorithms: [nccl] | spec.workload.benchmark.outlierThresholdPercent
          fused size not whole rows  | tokens: [32, 64]           | sizes: [16384, 1024], pattern: allreduceResidualRmsNorm | spec.workload.benchmark.sizes[1]
          tune section with benchmark | kind: benchmark           | kind: benchmark\\n    tune: {}                               | spec.workload.tune
          copyengine on allreduce    | oneshot]                   | copyengine]                                                   | spec.workload.benchmark.algorithms[2]
          copyengine on broadcast    | algorithms: [auto, nccl, oneshot] | collective: broadcast, algorithms: [nccl, copyengine] | spec.workload.benchmark.algorithms[1]
          fixed heuristic without algorithm | device: cuda        | device: cuda\\n  heuristic: {name: fixed}                    | spec.heuristic.fixedAlgorithm
          fixedAlgorithm without fixed | device: cuda             | device: cuda\\n  heuristic: {name: vllm, fixedAlgorithm: nccl} | spec.heuristic.fixedAlgorithm
          expect: wrong collective, size not measured, negative floor; a rule without a floor | device: cuda | device: cuda\\n  expect: [{collective: allgather, bytes: 3Mi, minBusBandwidthGBps: -1}, {collective: allreduce, bytes: 512Ki}] | spec.expect[0].collective, spec.expect[0].bytes, spec.expect[0].minBusBandwidthGBps, spec.expect[1]
          expect: ceilings of zero     | device: cuda               | device: cuda\\n  expect: [{collective: allreduce, bytes: 1Mi, maxLatencyMicros: 0}, {collective: allreduce, bytes: 1Mi, maxLatencyMicros: -0.0}] | spec.expect[0].maxLatencyMicros, spec.expect[1].maxLatencyMicros
          expect an algorithm not measured | device: cuda      | device: cuda\\n  expect: [{collective: allreduce, bytes: 1Mi, algorithm: twoshot, maxLatencyMicros: 30}] | spec.expect[0].algorithm
          bad baseline and /dev/shm  | device: cuda               | device: cuda\\n  baseline: {configMapRef: Nightly_Base, maxSlowdownPercent: 2000}\\n  sharedMemorySize: 16Mi | spec.baseline.configMapRef, spec.baseline.maxSlowdownPercent, spec.sharedMemorySize
          """)
  void everyProblemIsReportedWithItsFieldPath(
      String whatIsWrong, String replace, String with, String fieldPaths) {
    String yaml = VALID.replace(replace, with.replace("\\n", "\n"));
    assertThat(yaml).as("test setup for " + whatIsWrong).isNotEqualTo(VALID);

    List<SpecProblem> problems = CommJobValidator.validate(job(yaml));

    assertThat(problems).extracting(SpecProblem::fieldPath).containsExactly(fieldPaths.split(", "));
  }

  @Test
  void sharedMemoryFrom64MiTo1TiIsAcceptedAndATyposTerabytesAreNot() {
    String size = "device: cuda\n  sharedMemorySize: ";
    for (String fits : new String[] {"64Mi", "8Gi", "1Ti"}) {
      assertThat(CommJobValidator.validate(job(VALID.replace("device: cuda", size + fits))))
          .as(fits)
          .isEmpty();
    }

    assertThat(CommJobValidator.validate(job(VALID.replace("device: cuda", size + "8Ti"))))
        .containsExactly(
            new SpecProblem(
                "spec.sharedMemorySize",
                "'8Ti' is above the maximum 1Ti (it also raises the pod's memory limit by as"
                    + " much)"));
  }

  @Test
  void expectRulesOnMeasuredSizesAreAccepted() {
    // 64 tokens x 8192 x 2 bytes = 1Mi, 32 tokens = 512Ki
    String yaml =
        VALID.replace(
            "device: cuda",
            "device: cuda\n  expect: [{collective: allreduce, bytes: 1Mi, minBusBandwidthGBps:"
                + " 350}, {collective: allreduce, bytes: '524288', algorithm: nccl,"
                + " maxLatencyMicros: 40}]");

    assertThat(CommJobValidator.validate(job(yaml))).isEmpty();
  }

  @Test
  void infiniteFloorsAndCeilingsAreRefused() {
    String yaml =
        VALID.replace(
            "device: cuda",
            "device: cuda\n  expect: [{collective: allreduce, bytes: 1Mi, maxLatencyMicros: 1}]");
    CommJob job = job(yaml);
    job.getSpec()
        .getExpect()
        .getFirst()
        .withMaxLatencyMicros(Double.POSITIVE_INFINITY)
        .withMinBusBandwidthGBps(Double.POSITIVE_INFINITY);

    assertThat(CommJobValidator.validate(job))
        .extracting(SpecProblem::toString)
        .containsExactly(
            "spec.expect[0].minBusBandwidthGBps: Infinity is a floor no figure can reach",
            "spec.expect[0].maxLatencyMicros: Infinity is not a latency ceiling (more than 0 and"
                + " finite)");
  }

  @Test
  void aSizeNotMeasuredIsNamedWithTheSizesThatAre() {
    String yaml =
        VALID.replace(
            "device: cuda",
            "device: cuda\n  expect: [{collective: allreduce, bytes: 64Mi, minBusBandwidthGBps: 1}]");

    assertThat(CommJobValidator.validate(job(yaml)))
        .singleElement()
        .hasToString(
            "spec.expect[0].bytes: 64Mi (67108864 bytes) is not a size the benchmark measures"
                + " (524288, 1048576)");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"1job", "8gpu-sweep"})
  void aNameStartingWithADigitIsRefusedAsTheClusterRefusesIt(String name) {
    // the job's name names its headless Service, a DNS-1035 label: the first character is a letter
    assertThat(CommJobValidator.validate(job(VALID.replace("ar-tp4", name))))
        .singleElement()
        .hasToString(
            "metadata.name: '%s' is not a valid job name (lower-case letters, digits and '-',"
                    .formatted(name)
                + " starting with a letter and ending with a letter or digit: it also names the"
                + " job's headless Service)");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"ring", "oneshot"})
  void fieldsLeftOutCountAsTheirDefaults(String algorithm) {
    // no device named: a local run may choose cpu, where ring runs; no ranksPerPod: one per pod
    String yaml =
        VALID
            .replace("  device: cuda\n", "")
            .replace("  ranksPerPod: 4\n", "")
            .replace("[auto, nccl, oneshot]", "[" + algorithm + "]");

    List<SpecProblem> problems = CommJobValidator.validate(job(yaml));

    if (algorithm.equals("ring")) {
      assertThat(problems).isEmpty();
    } else {
      assertThat(problems)
          .singleElement()
          .hasToString(
              "spec.workload.benchmark.algorithms[0]: oneshot exchanges buffers among the ranks of"
                  + " one pod, but spec.worldSize (4) spans 4 pods of spec.ranksPerPod (1); use"
                  + " nccl or auto");
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"allgather", "reducescatter"})
  void copyengineBenchmarksAndTunesAllGatherAndReduceScatter(String collective) {
    String benchmark =
        VALID.replace(
            "algorithms: [auto, nccl, oneshot]",
            "collective: " + collective + ", algorithms: [auto, nccl, oneshot, copyengine]");
    String tune =
        VALID.replace(
            "kind: benchmark\n    benchmark: {tokens: [32, 64], algorithms: [auto, nccl, oneshot]}",
            "kind: tune\n    tune: {collective: "
                + collective
                + ", tokens: [32, 64], algorithms: [nccl, oneshot, copyengine]}");
    assertThat(tune).isNotEqualTo(VALID);

    assertThat(CommJobValidator.validate(job(benchmark))).isEmpty();
    assertThat(CommJobValidator.validate(job(tune))).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"broadcast", "collectivepermute"})
  void tuneRefusesCollectivesWithoutAlgorithmsToChooseFrom(String collective) {
    String tune =
        VALID.replace(
            "kind: benchmark\n    benchmark: {tokens: [32, 64], algorithms: [auto, nccl, oneshot]}",
            "kind: tune\n    tune: {collective: " + collective + ", tokens: [32, 64]}");

    assertThat(CommJobValidator.validate(job(tune)))
        .singleElement()
        .hasToString(
            "spec.workload.tune.collective: tune measures allreduce, allgather or reducescatter,"
                + " not "
                + collective);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"oneshot", "twoshot", "copyengine"})
  void peerMemoryAlgorithmsAreRefusedAcrossPodsLocallyAsInACluster(String algorithm) {
    // a local run plays the pods too (LOCAL_RANK is rank mod ranksPerPod), so a job whose
    // peer-memory algorithm spans pods is refused before any rank starts, not by the ranks
    String yaml =
        VALID
            .replace("ranksPerPod: 4", "ranksPerPod: 2")
            .replace(
                "{tokens: [32, 64], algorithms: [auto, nccl, oneshot]}",
                "{collective: allgather, tokens: [32, 64], algorithms: [nccl, " + algorithm + "]}");

    assertThat(CommJobValidator.validate(job(yaml)))
        .singleElement()
        .hasToString(
            "spec.workload.benchmark.algorithms[1]: %s exchanges buffers among the ranks of one"
                    .formatted(algorithm)
                + " pod, but spec.worldSize (4) spans 2 pods of spec.ranksPerPod (2); use nccl or"
                + " auto");
  }

  @Test
  void aTuneAcrossPodsIsToldToUseNcclSinceAutoIsNoCandidate() {
    String tune =
        VALID
            .replace("ranksPerPod: 4", "ranksPerPod: 2")
            .replace(
                "kind: benchmark\n    benchmark: {tokens: [32, 64], algorithms: [auto, nccl, oneshot]}",
                "kind: tune\n    tune: {tokens: [32, 64], algorithms: [nccl, oneshot]}");

    assertThat(CommJobValidator.validate(job(tune)))
        .singleElement()
        .hasToString(
            "spec.workload.tune.algorithms[1]: oneshot exchanges buffers among the ranks of one"
                + " pod, but spec.worldSize (4) spans 2 pods of spec.ranksPerPod (2); use nccl");
  }

  private static CommJob job(String yaml) {
    try {
      return YAML.readValue(yaml, CommJob.class);
    } catch (Exception e) {
      throw new IllegalArgumentException("test job does not parse: " + yaml, e);
    }
  }
}
