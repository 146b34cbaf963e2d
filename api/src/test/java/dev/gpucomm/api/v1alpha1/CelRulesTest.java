package dev.gpucomm.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.gpucomm.api.v1alpha1.crd.CelValidationRules;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the API server says when a CommJob is created or updated: the committed CRD's CEL rules,
 * evaluated with CEL as the server evaluates them.
 */
class CelRulesTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private static final String NOT_A_DNS_1035_LABEL =
      "metadata.name must be a DNS-1035 label: lower-case letters, digits and '-', starting with a"
          + " letter and ending with a letter or digit";
  private static final String NAME_TOO_LONG =
      "metadata.name must be at most 52 characters (the pods and ConfigMaps named after it must"
          + " stay DNS labels)";
  private static final String IMMUTABLE =
      "is immutable: create a new CommJob to run something else";
  private static final String TEMPLATE_FIXED =
      "spec: spec.template is immutable unless the job is suspended";
  private static final String ADDED_OR_REMOVED =
      "spec: spec.baseline, spec.expect, spec.network, spec.heuristic, spec.gang and"
          + " spec.sharedMemorySize cannot be added or removed after creation: create a new"
          + " CommJob to run something else";

  /** A job that sets every optional part of what it runs; the cases below edit a copy. */
  private static final String RUNNING_JOB =
      """
      apiVersion: gpucomm.dev/v1alpha1
      kind: CommJob
      metadata: {name: allreduce-tp8}
      spec:
        worldSize: 16
        ranksPerPod: 8
        workload:
          kind: benchmark
          benchmark: {collective: allreduce, tokens: [128, 1024]}
        heuristic: {name: trtllm}
        baseline: {configMapRef: allreduce-tp8-last-week}
        expect: [{collective: allreduce, bytes: 1Mi, minBusBandwidthGBps: 100}]
        network: {expect: {interNode: ib, intraNode: nvlink}}
        sharedMemorySize: 16Gi
        gang: {scheduler: volcano}
        template: {spec: {nodeSelector: {pool: h100}}}
      """;

  private static CelValidationRules rules;

  @BeforeAll
  static void compileTheCommittedCrdsRules() throws IOException {
    JsonNode crd =
        YAML.readTree(
            Path.of(System.getProperty("committedCrdDir"), "commjobs.gpucomm.dev-v1.yml").toFile());
    rules = new CelValidationRules(crd.at("/spec/versions/0/schema/openAPIV3Schema"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyCommJobUnderExamples")
  void everyExampleIsAdmitted(String example, JsonNode job) {
    assertThat(rules.onCreate(job)).isEmpty();
  }

  /** One with a generateName is created anew each time, never applied over itself. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("everyNamedCommJobUnderExamples")
  void everyNamedExampleMayBeAppliedAgainUnchanged(String example, JsonNode job) {
    assertThat(rules.onUpdate(job, job)).isEmpty();
  }

  @Test
  void aNameOfFiftyTwoCharactersIsAdmittedAndOneOfFiftyThreeIsRefused() {
    assertThat(rules.onCreate(named("a".repeat(CommJob.MAX_NAME_LENGTH)))).isEmpty();
    assertThat(rules.onCreate(named("a".repeat(CommJob.MAX_NAME_LENGTH + 1))))
        .containsExactly(NAME_TOO_LONG);
  }

  @Test
  void aGeneratedNameIsCheckedWithTheFiveCharactersTheServerAppends() {
    assertThat(rules.onCreate(generatedFrom("a".repeat(CommJob.MAX_NAME_LENGTH - 5)))).isEmpty();
    assertThat(rules.onCreate(generatedFrom("a".repeat(CommJob.MAX_NAME_LENGTH - 4))))
        .containsExactly(NAME_TOO_LONG);
    assertThat(rules.onCreate(generatedFrom("8gpus-"))).containsExactly(NOT_A_DNS_1035_LABEL);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"a", "llama-70b-tp8", "x9"})
  void aDns1035LabelIsAdmittedAsAName(String name) {
    assertThat(rules.onCreate(named(name))).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"AllReduce", "8gpus", "allreduce-", "-allreduce", "all_reduce", "ar.tp8"})
  void aNameThatIsNotADns1035LabelIsRefused(String name) {
    assertThat(rules.onCreate(named(name))).containsExactly(NOT_A_DNS_1035_LABEL);
  }

  @Test
  void aWorldThatRanksPerPodDoesNotDivideIsRefused() {
    assertThat(rules.onCreate(withSpec(runningJob(), spec -> spec.put("worldSize", 12))))
        .containsExactly("spec: spec.worldSize must be a multiple of spec.ranksPerPod");
  }

  @Test
  void anOmittedRanksPerPodIsDefaultedBeforeTheWorldIsDivided() {
    ObjectNode oneRankPerPod =
        withSpec(
            runningJob(),
            spec -> {
              spec.remove("ranksPerPod");
              spec.put("worldSize", 3);
            });
    assertThat(rules.onCreate(oneRankPerPod)).isEmpty();
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "suspend                  | true",
        "ttlSecondsAfterFinished  | 3600",
        "cleanPodPolicy           | All",
        "schedulingTimeoutSeconds | 600"
      })
  void aRunningJobsLifecycleFieldsMayChange(String field, String value) {
    ObjectNode running = runningJob();
    assertThat(rules.onUpdate(running, withSpec(running, spec -> spec.set(field, yaml(value)))))
        .isEmpty();
  }

  @Test
  void aFailurePolicyNamesEachKindOfFailureOnce() {
    assertThat(rules.onCreate(withFailurePolicy("{restartOn: [Disruption, RankFailed]}")))
        .isEmpty();
    assertThat(rules.onCreate(withFailurePolicy("{restartOn: [Disruption, Disruption]}")))
        .containsExactly("spec.failurePolicy.restartOn: names a kind of failure twice");
  }

  private ObjectNode withFailurePolicy(String policy) {
    return withSpec(runningJob(), spec -> spec.set("failurePolicy", yaml(policy)));
  }

  @Test
  void aRunningJobsFailurePolicyMayChange() {
    ObjectNode running = runningJob();
    assertThat(
            rules.onUpdate(
                running,
                withSpec(running, spec -> spec.set("failurePolicy", yaml("{maxRestarts: 3}")))))
        .isEmpty();
  }

  @Test
  void aRunningJobCannotBeResized() {
    ObjectNode running = runningJob();
    assertThat(rules.onUpdate(running, withSpec(running, spec -> spec.put("worldSize", 32))))
        .containsExactly("spec.worldSize: " + IMMUTABLE);
  }

  @Test
  void aRunningJobCannotBeTurnedIntoAnotherBenchmark() {
    ObjectNode running = runningJob();
    ObjectNode otherSizes =
        withSpec(
            running,
            spec ->
                spec.set(
                    "workload",
                    yaml("{kind: benchmark, benchmark: {collective: allreduce, sizes: [65536]}}")));
    assertThat(rules.onUpdate(running, otherSizes)).containsExactly("spec.workload: " + IMMUTABLE);
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "ranksPerPod      | 4",
        "device           | cpu",
        "heuristic        | {name: vllm}",
        "timeoutSeconds   | 1800",
        "baseline         | {configMapRef: allreduce-tp8-yesterday}",
        "expect           | [{collective: allreduce, bytes: 1Mi, minBusBandwidthGBps: 200}]",
        "network          | {expect: {interNode: any, intraNode: nvlink}}",
        "sharedMemorySize | 32Gi",
        "gang             | {scheduler: coscheduling}"
      })
  void everyOtherPartOfWhatAJobRunsIsFixedAtCreation(String field, String value) {
    ObjectNode running = runningJob();
    assertThat(rules.onUpdate(running, withSpec(running, spec -> spec.set(field, yaml(value)))))
        .containsExactly("spec." + field + ": " + IMMUTABLE);
  }

  @Test
  void spellingOutADefaultIsNotAChange() {
    ObjectNode running = runningJob();
    ObjectNode spelledOut =
        withSpec(
            running,
            spec -> {
              spec.put("device", "cuda");
              spec.set(
                  "baseline",
                  yaml("{configMapRef: allreduce-tp8-last-week, maxSlowdownPercent: 5}"));
            });
    assertThat(rules.onUpdate(running, spelledOut)).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"baseline", "expect", "gang", "network", "heuristic", "sharedMemorySize"})
  void anOptionalPartOfWhatAJobRunsCannotBeAddedOrRemoved(String field) {
    ObjectNode running = runningJob();
    ObjectNode without = withSpec(running, spec -> spec.remove(field));
    assertThat(rules.onUpdate(running, without)).as("removed").containsExactly(ADDED_OR_REMOVED);
    assertThat(rules.onUpdate(without, running)).as("added").containsExactly(ADDED_OR_REMOVED);
  }

  @Test
  void aSuspendedJobsTemplateMayChangeAsKueuePlacesIt() {
    ObjectNode queued = withSpec(runningJob(), spec -> spec.put("suspend", true));
    ObjectNode placed = withSpec(queued, spec -> spec.set("template", placedOnA100s()));
    ObjectNode untemplated = withSpec(queued, spec -> spec.remove("template"));
    assertThat(rules.onUpdate(queued, placed)).isEmpty();
    assertThat(rules.onUpdate(untemplated, queued)).as("template added").isEmpty();
    assertThat(rules.onUpdate(queued, untemplated)).as("template removed").isEmpty();
  }

  @Test
  void kueueMayAdmitASuspendedJobAndPlaceItInOneUpdate() {
    ObjectNode queued = withSpec(runningJob(), spec -> spec.put("suspend", true));
    ObjectNode admitted =
        withSpec(
            queued,
            spec -> {
              spec.put("suspend", false);
              spec.set("template", placedOnA100s());
            });
    assertThat(rules.onUpdate(queued, admitted)).isEmpty();
  }

  @Test
  void aRunningJobsTemplateIsFixed() {
    ObjectNode running = runningJob();
    ObjectNode untemplated = withSpec(running, spec -> spec.remove("template"));
    assertThat(
            rules.onUpdate(
                running, withSpec(running, spec -> spec.set("template", placedOnA100s()))))
        .containsExactly(TEMPLATE_FIXED);
    assertThat(rules.onUpdate(running, untemplated)).as("removed").containsExactly(TEMPLATE_FIXED);
    assertThat(rules.onUpdate(untemplated, running)).as("added").containsExactly(TEMPLATE_FIXED);
  }

  @Test
  void kueueMayEvictARunningJobAndTakeItsPlacementBackInOneUpdate() {
    ObjectNode placed = withSpec(runningJob(), spec -> spec.set("template", placedOnA100s()));
    ObjectNode evicted =
        withSpec(
            placed,
            spec -> {
              spec.put("suspend", true);
              spec.remove("template");
            });
    assertThat(rules.onUpdate(placed, evicted)).isEmpty();
    ObjectNode resumedAndMoved =
        withSpec(evicted, spec -> spec.put("suspend", false)); // from suspended: placement is free
    assertThat(rules.onUpdate(evicted, resumedAndMoved)).isEmpty();
    ObjectNode stillRunningButMoved =
        withSpec(placed, spec -> spec.remove("template")); // a running job's pods stay as made
    assertThat(rules.onUpdate(placed, stillRunningButMoved)).containsExactly(TEMPLATE_FIXED);
  }

  @Test
  void anExpectationWithoutAFloorIsRefusedAtItsIndex() {
    ObjectNode noFloor =
        withSpec(
            runningJob(),
            spec ->
                spec.set(
                    "expect",
                    yaml(
                        "[{collective: allreduce, bytes: 1Mi, maxLatencyMicros: 50},"
                            + " {collective: allreduce, bytes: 4Mi}]")));
    assertThat(rules.onCreate(noFloor))
        .containsExactly(
            "spec.expect[1]: an expect rule needs minBusBandwidthGBps or maxLatencyMicros");
  }

  @Test
  void aBenchmarkOfMoreThanEightGiBPerRankIsRefused() {
    // bf16 by default: 524288 tokens x 8192 elements x 2 bytes is 8 GiB exactly.
    assertThat(rules.onCreate(benchmarking("{tokens: [524288]}"))).isEmpty();
    assertThat(rules.onCreate(benchmarking("{tokens: [524289]}")))
        .containsExactly(
            "spec.workload.benchmark: benchmark: tokens x hiddenSize x the dtype's bytes is at"
                + " most 8 GiB (8589934592 bytes) per rank");
    assertThat(rules.onCreate(benchmarking("{tokens: [524288], dtype: fp32}"))).hasSize(1);
  }

  @Test
  void peerMemoryAlgorithmsOfAJobThatSpansPodsAreRefusedAtCreation() {
    String acrossPods =
        "spec: oneshot, twoshot, copyengine and the program backend ipc exchange buffers among"
            + " the ranks of one pod: a job whose ranks span pods (worldSize above ranksPerPod)"
            + " uses nccl (or auto in a benchmark) and the program backend nccl";
    // the running job's sixteen ranks fill two pods of eight
    assertThat(rules.onCreate(benchmarking("{tokens: [128], algorithms: [nccl, oneshot]}")))
        .containsExactly(acrossPods);
    assertThat(
            rules.onCreate(
                running("{kind: program, program: {name: rowParallelLinear, backend: ipc}}")))
        .contains(acrossPods);
    assertThat(
            rules.onCreate(
                withSpec(
                    benchmarking("{tokens: [128], algorithms: [nccl, oneshot]}"),
                    spec -> spec.put("worldSize", 8))))
        .as("in one pod")
        .isEmpty();
  }

  @Test
  void aSectionOfAnotherKindThanTheWorkloadsIsRefusedForWhatItIs() {
    ObjectNode leftOver =
        running("{kind: fabric, fabric: {}, benchmark: {sizes: [8], algorithms: [oneshot]}}");

    assertThat(rules.onCreate(leftOver))
        .contains(
            "spec.workload: workload holds only the section of its kind: benchmark, program,"
                + " tune or fabric as workload.kind says");
  }

  @Test
  void algorithmsAndCollectivesASweepCannotRunAreRefusedAtCreation() {
    assertThat(
            rules.onCreate(
                inOnePod(
                    running(
                        "{kind: benchmark, benchmark: {tokens: [128],"
                            + " algorithms: [nccl, copyengine]}}"))))
        .containsExactly(
            "spec.workload.benchmark: benchmark: copyengine runs allgather and reducescatter only");
    assertThat(rules.onCreate(inOnePod(running("{kind: tune, tune: {algorithms: [auto, nccl]}}"))))
        .containsExactly(
            "spec.workload.tune: tune: auto is not a candidate (tune measures the algorithms auto"
                + " chooses from)");
    assertThat(rules.onCreate(inOnePod(running("{kind: tune, tune: {collective: broadcast}}"))))
        .containsExactly("spec.workload.tune: tune measures allreduce, allgather or reducescatter");
    assertThat(rules.onCreate(inOnePod(running("{kind: fabric, fabric: {bytes: 24}}"))))
        .containsExactly(
            "spec.workload.fabric: fabric.bytes is whole 16-byte vectors, a multiple of 16");
  }

  @Test
  void ringOnGpusIsRefusedAtCreationAndAdmittedOnTheCpuDevice() {
    String refusal = "spec: ring is the cpu device's stand-in for NCCL; on device cuda use nccl";
    assertThat(rules.onCreate(inOnePod(benchmarking("{tokens: [128], algorithms: [nccl, ring]}"))))
        .containsExactly(refusal);
    assertThat(
            rules.onCreate(
                withSpec(
                    inOnePod(running("{kind: tune, tune: {algorithms: [ring, nccl]}}")),
                    spec -> spec.put("device", "cuda"))))
        .containsExactly(refusal);
    assertThat(
            rules.onCreate(
                withSpec(
                    inOnePod(benchmarking("{tokens: [128], algorithms: [ring, nccl]}")),
                    spec -> spec.put("device", "cpu"))))
        .isEmpty();
  }

  @Test
  void expectAndBaselineOfAWorkloadThatIsNoBenchmarkAreRefusedAtCreation() {
    assertThat(rules.onCreate(running("{kind: fabric, fabric: {}}")))
        .containsExactlyInAnyOrder(
            "spec: spec.expect checks benchmark figures: it applies to workload.kind benchmark"
                + " only",
            "spec: spec.baseline compares benchmark reports: it applies to workload.kind"
                + " benchmark only");
  }

  @Test
  void sizesAndTokensThatTheRanksCannotMoveAreRefusedAtCreation() {
    assertThat(rules.onCreate(benchmarking("{sizes: [8, 4096]}")))
        .containsExactly(
            "spec.workload.benchmark: benchmark: sizes are whole 16-byte vectors, multiples of 16"
                + " from 16");
    assertThat(rules.onCreate(benchmarking("{tokens: [0]}")))
        .containsExactly("spec.workload.benchmark: benchmark: tokens are from 1 to 2147483647");
    assertThat(rules.onCreate(benchmarking("{tokens: [3], hiddenSize: 4095}")))
        .containsExactly(
            "spec.workload.benchmark: benchmark: tokens x hiddenSize x the dtype's bytes is a"
                + " multiple of 16 (the ranks move 16-byte vectors)");
  }

  @Test
  void aTokenCountWhoseBytesWouldOverflowIsRefusedByItsRangeAlone() {
    // the byte rules pass over a count out of range rather than overflow a long on it
    assertThat(rules.onCreate(benchmarking("{tokens: [4611686018427387904]}")))
        .containsExactly("spec.workload.benchmark: benchmark: tokens are from 1 to 2147483647");
  }

  @Test
  void anFp8ScaleWithoutTheFp8PatternIsRefused() {
    String message =
        "spec.workload.benchmark: benchmark.fp8Scale applies to pattern"
            + " allreduceResidualRmsNormFp8 only";
    assertThat(
            rules.onCreate(
                benchmarking(
                    "{tokens: [128], pattern: allreduceResidualRmsNormFp8, fp8Scale: 0.5}")))
        .isEmpty();
    assertThat(rules.onCreate(benchmarking("{tokens: [128], fp8Scale: 0.5}")))
        .containsExactly(message);
    assertThat(
            rules.onCreate(
                benchmarking("{tokens: [128], pattern: allreduceResidualRmsNorm, fp8Scale: 0.5}")))
        .containsExactly(message);
  }

  @Test
  void summingInTheElementTypeWithoutAFusedPatternIsRefused() {
    assertThat(rules.onCreate(benchmarking("{tokens: [128], fp32Accumulate: false}")))
        .containsExactly(
            "spec.workload.benchmark: benchmark.fp32Accumulate false applies to the fused patterns"
                + " only");
    assertThat(rules.onCreate(tuning("{fp32Accumulate: false}")))
        .containsExactly(
            "spec.workload.tune: tune.fp32Accumulate false applies to the fused patterns only");
    assertThat(
            rules.onCreate(
                benchmarking(
                    "{tokens: [128], pattern: allreduceResidualRmsNorm, fp32Accumulate: false}")))
        .isEmpty();
    assertThat(rules.onCreate(benchmarking("{tokens: [128], fp32Accumulate: true}"))).isEmpty();
  }

  @Test
  void aTuneFp8ScaleWithoutTheFp8PatternIsRefused() {
    assertThat(rules.onCreate(tuning("{fp8Scale: 0.5}")))
        .containsExactly(
            "spec.workload.tune: tune.fp8Scale applies to pattern allreduceResidualRmsNormFp8 only");
    assertThat(rules.onCreate(tuning("{pattern: allreduceResidualRmsNormFp8, fp8Scale: 0.5}")))
        .isEmpty();
  }

  @Test
  void aBenchmarkNeedsExactlyOneOfTokensAndSizes() {
    String message = "spec.workload.benchmark: benchmark needs exactly one of tokens and sizes";
    assertThat(rules.onCreate(benchmarking("{}"))).containsExactly(message);
    assertThat(rules.onCreate(benchmarking("{tokens: [128], sizes: [65536]}")))
        .containsExactly(message);
  }

  @Test
  void aBenchmarkWorkloadWithoutItsBenchmarkIsRefused() {
    assertThat(
            rules.onCreate(
                withSpec(runningJob(), spec -> spec.set("workload", yaml("{kind: benchmark}")))))
        .containsExactly(
            "spec.workload: workload.benchmark is required when workload.kind is benchmark");
  }

  private static Stream<Arguments> everyCommJobUnderExamples() throws IOException {
    Path examples = Path.of(System.getProperty("committedCrdDir")).resolveSibling("examples");
    List<Arguments> jobs = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(examples)) {
      for (Path file : walk.filter(path -> path.toString().endsWith(".yaml")).sorted().toList()) {
        try (MappingIterator<JsonNode> documents =
            YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
          while (documents.hasNext()) {
            JsonNode document = documents.next();
            if ("CommJob".equals(document.path("kind").asText())) {
              jobs.add(Arguments.of(examples.relativize(file).toString(), document));
            }
          }
        }
      }
    }
    assertThat(jobs).as("CommJobs under %s", examples).isNotEmpty();
    return jobs.stream();
  }

  private static Stream<Arguments> everyNamedCommJobUnderExamples() throws IOException {
    return everyCommJobUnderExamples()
        .filter(example -> ((JsonNode) example.get()[1]).at("/metadata/name").isTextual());
  }

  private static ObjectNode runningJob() {
    return (ObjectNode) yaml(RUNNING_JOB);
  }

  private static ObjectNode named(String name) {
    ObjectNode job = runningJob();
    ((ObjectNode) job.get("metadata")).put("name", name);
    return job;
  }

  private static ObjectNode generatedFrom(String generateName) {
    ObjectNode job = runningJob();
    job.putObject("metadata").put("generateName", generateName);
    return job;
  }

  /** A tune job: the running job's spec without the parts that only a benchmark's results have. */
  private static ObjectNode tuning(String tune) {
    return withSpec(
        runningJob(),
        spec -> {
          spec.remove(List.of("baseline", "expect"));
          spec.set("workload", yaml("{kind: tune, tune: " + tune + "}"));
        });
  }

  private static ObjectNode benchmarking(String benchmark) {
    return running("{kind: benchmark, benchmark: " + benchmark + "}");
  }

  /** {@code job} on the eight ranks of one pod, without its benchmark's expect and baseline. */
  private static ObjectNode inOnePod(ObjectNode job) {
    return withSpec(
        job,
        spec -> {
          spec.put("worldSize", 8);
          spec.remove("expect");
          spec.remove("baseline");
        });
  }

  /** The running job with {@code workload} in place of its own. */
  private static ObjectNode running(String workload) {
    return withSpec(runningJob(), spec -> spec.set("workload", yaml(workload)));
  }

  private static ObjectNode withSpec(ObjectNode job, Consumer<ObjectNode> edit) {
    ObjectNode copy = job.deepCopy();
    edit.accept((ObjectNode) copy.get("spec"));
    return copy;
  }

  private static JsonNode placedOnA100s() {
    return yaml(
        "{spec: {nodeSelector: {pool: a100}, tolerations: [{key: pool, operator: Exists}]}}");
  }

  private static JsonNode yaml(String text) {
    try {
      return YAML.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
