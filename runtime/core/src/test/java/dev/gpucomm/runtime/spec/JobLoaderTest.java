package dev.gpucomm.runtime.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.HeuristicName;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JobLoaderTest {
  private static final String VALID =
      """
      apiVersion: gpucomm.dev/v1alpha1
      kind: CommJob
      metadata:
        name: ar-tp4
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
  void aJobWithSeveralProblemsIsRefusedWithTheFirstAndCarriesThemAll() {
    String yaml =
        VALID.replace("name: ar-tp4", "name: 1job").replace("worldSize: 4", "worldSize: 6");

    assertThatThrownBy(() -> loader.load(yaml, "x.yaml"))
        .isInstanceOfSatisfying(
            InvalidJobException.class,
            e -> {
              assertThat(e).hasMessageStartingWith("x.yaml: metadata.name: '1job' is not a valid");
              assertThat(e.lines())
                  .containsExactly(
                      e.getMessage(),
                      "x.yaml: spec.worldSize: 6 is not a multiple of spec.ranksPerPod (4)");
            });
  }

  @Test
  void aMinimalBenchmarkGetsTheCrdDefaults() {
    LoadedJob loaded = loader.load(VALID, "x.yaml");

    CommJob job = loaded.job();
    assertThat(loaded.name()).isEqualTo("ar-tp4");
    assertThat(loaded.deviceExplicit()).isFalse();
    assertThat(job.getSpec().getDevice()).isEqualTo(DeviceKind.CUDA);
    assertThat(job.getSpec().getTimeoutSeconds()).isEqualTo(900);
    assertThat(job.getSpec().getHeuristic().getName()).isEqualTo(HeuristicName.TRTLLM);
    var benchmark = job.getSpec().getWorkload().getBenchmark();
    assertThat(benchmark.getHiddenSize()).isEqualTo(8192);
    assertThat(benchmark.getIterations()).isEqualTo(200);
    assertThat(benchmark.getWarmupIterations()).isEqualTo(20);
    assertThat(benchmark.getCudaGraph()).isTrue();
    assertThat(benchmark.getAlgorithms()).as("device-dependent, resolved at run time").isNull();
  }

  @Test
  void jsonIsReadLikeYaml() {
    String json =
        """
        {"apiVersion": "gpucomm.dev/v1alpha1", "kind": "CommJob", "metadata": {"name": "j"},
         "spec": {"worldSize": 2, "ranksPerPod": 2, "device": "cpu",
         "workload": {"kind": "benchmark",
         "benchmark": {"sizes": [4096], "dtype": "fp32", "algorithms": ["ring", "oneshot"]}}}}
        """;

    LoadedJob loaded = loader.load(json, "job.json");

    assertThat(loaded.deviceExplicit()).isTrue();
    var benchmark = loaded.job().getSpec().getWorkload().getBenchmark();
    assertThat(benchmark.getDtype()).isEqualTo(DType.FP32);
    assertThat(benchmark.getAlgorithms()).containsExactly(Algorithm.RING, Algorithm.ONESHOT);
  }

  @Test
  void aTuneWithoutSizesSweeps32To4096Tokens() {
    String yaml =
        VALID.replace(
            """
                kind: benchmark
                benchmark:
                  dtype: bf16
                  tokens: [32, 64]
            """,
            """
                kind: tune
                tune: {}
            """);

    var tune = loader.load(yaml, "t.yaml").job().getSpec().getWorkload().getTune();

    assertThat(tune.getTokens()).containsExactly(32, 64, 128, 256, 512, 1024, 2048, 4096);
    assertThat(tune.getIterations()).isEqualTo(100);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      textBlock =
          """
          # what is wrong                | replace               | with                            | message
          unknown dtype                  | dtype: bf16           | dtype: bf8                      | x.yaml: spec.workload.benchmark.dtype: unknown value 'bf8' (expected bf16, fp16, fp32)
          unknown field                  | dtype: bf16           | dtyp: bf16                      | x.yaml: spec.workload.benchmark.dtyp: unknown field 'dtyp' (known: algorithms, collective, cudaGraph, dtype, fp32Accumulate, fp8Scale, hiddenSize, inPlace, iterations, outlierThresholdPercent, pattern, seed, sizes, tokens, warmupIterations)
          unknown top-level spec field   | worldSize: 4          | worldSize: 4\\n  gpus: 4        | x.yaml: spec.gpus: unknown field 'gpus' (known: baseline, cleanPodPolicy, device, expect, failurePolicy, gang, heuristic, network, ranksPerPod, schedulingTimeoutSeconds, sharedMemorySize, suspend, timeoutSeconds, ttlSecondsAfterFinished, workload, worldSize)
          world not divisible            | worldSize: 4          | worldSize: 6                    | x.yaml: spec.worldSize: 6 is not a multiple of spec.ranksPerPod (4)
          world is text                  | worldSize: 4          | worldSize: four                 | x.yaml: spec.worldSize: expected an integer, got 'four'
          world is a quoted number       | worldSize: 4          | worldSize: '4'                  | x.yaml: spec.worldSize: expected an integer, got '4'
          world is fractional            | worldSize: 4          | worldSize: 4.5                  | x.yaml: spec.worldSize: expected an integer, got '4.5'
          world missing                  | worldSize: 4          | timeoutSeconds: 60              | x.yaml: spec.worldSize: required
          world too large                | worldSize: 4          | worldSize: 8192                 | x.yaml: spec.worldSize: 8192 is above the maximum 4096
          ranksPerPod zero               | ranksPerPod: 4        | ranksPerPod: 0                  | x.yaml: spec.ranksPerPod: 0 is below the minimum 1
          unknown device                 | ranksPerPod: 4        | ranksPerPod: 4\\n  device: tpu  | x.yaml: spec.device: unknown value 'tpu' (expected cuda, cpu)
          unknown transport              | ranksPerPod: 4        | ranksPerPod: 4\\n  network: {expect: {interNode: infiniband}} | x.yaml: spec.network.expect.interNode: unknown value 'infiniband' (expected any, ib, roce, socket, plugin)
          both tokens and sizes          | tokens: [32, 64]      | tokens: [32]\\n      sizes: [16] | x.yaml: spec.workload.benchmark: needs exactly one of tokens and sizes
          neither tokens nor sizes       | tokens: [32, 64]      | iterations: 5                   | x.yaml: spec.workload.benchmark: needs exactly one of tokens and sizes
          size not a multiple of 16      | tokens: [32, 64]      | sizes: [4096, 1000]             | x.yaml: spec.workload.benchmark.sizes[1]: 1000 bytes is not a multiple of 16
          tokens too small for 16 bytes  | tokens: [32, 64]      | tokens: [3]\\n      hiddenSize: 5 | x.yaml: spec.workload.benchmark.tokens[0]: 3 tokens x hiddenSize 5 x 2 bytes (bf16) = 30 bytes is not a multiple of 16
          zero tokens                    | tokens: [32, 64]      | tokens: [32, 0]                 | x.yaml: spec.workload.benchmark.tokens[1]: 0 is below the minimum 1
          empty tokens                   | tokens: [32, 64]      | tokens: []                      | x.yaml: spec.workload.benchmark.tokens: needs at least 1 item
          unknown algorithm              | dtype: bf16           | algorithms: [auto, fastest]     | x.yaml: spec.workload.benchmark.algorithms[1]: unknown value 'fastest' (expected auto, nccl, oneshot, twoshot, ring, hierarchical, copyengine)
          duplicate algorithm            | dtype: bf16           | algorithms: [ring, ring]        | x.yaml: spec.workload.benchmark.algorithms[1]: 'ring' is listed twice
          zero iterations                | dtype: bf16           | iterations: 0                   | x.yaml: spec.workload.benchmark.iterations: 0 is below the minimum 1
          negative warmup                | dtype: bf16           | warmupIterations: -1            | x.yaml: spec.workload.benchmark.warmupIterations: -1 is below the minimum 0
          cudaGraph not a boolean        | dtype: bf16           | cudaGraph: sometimes            | x.yaml: spec.workload.benchmark.cudaGraph: expected true or false, got 'sometimes'
          a tag making a boolean of text | dtype: bf16           | cudaGraph: !!bool maybe         | x.yaml: spec.workload.benchmark.cudaGraph: expected true or false, got 'maybe'
          inPlace with a peer-memory kernel | dtype: bf16        | algorithms: [nccl, oneshot]\\n      inPlace: true | x.yaml: spec.workload.benchmark.algorithms[1]: oneshot does not run in place (a rank's peers read its input while it would overwrite it); with inPlace use nccl, ring or auto
          inPlace for another collective | dtype: bf16           | collective: allgather\\n      inPlace: true | x.yaml: spec.workload.benchmark.inPlace: applies to allreduce only (allgather's output is not the shape of its input)
          unknown collective             | dtype: bf16           | collective: alltoall            | x.yaml: spec.workload.benchmark.collective: unknown value 'alltoall' (expected allreduce, allgather, reducescatter, broadcast, collectivepermute)
          unknown workload kind          | kind: benchmark       | kind: training                  | x.yaml: spec.workload.kind: unknown value 'training' (expected benchmark, program, tune, fabric)
          workload section missing       | kind: benchmark       | kind: tune                      | x.yaml: spec.workload.tune: required when spec.workload.kind is tune
          fixed without algorithm        | ranksPerPod: 4        | ranksPerPod: 4\\n  heuristic: {name: fixed} | x.yaml: spec.heuristic.fixedAlgorithm: required when spec.heuristic.name is fixed
          fixed auto                     | ranksPerPod: 4        | ranksPerPod: 4\\n  heuristic: {name: fixed, fixedAlgorithm: auto} | x.yaml: spec.heuristic.fixedAlgorithm: auto cannot be fixed (name an algorithm)
          measured without table         | ranksPerPod: 4        | ranksPerPod: 4\\n  heuristic: {name: measured} | x.yaml: spec.heuristic.tuningRef: required when spec.heuristic.name is measured
          unknown heuristic              | ranksPerPod: 4        | ranksPerPod: 4\\n  heuristic: {name: nccl} | x.yaml: spec.heuristic.name: unknown value 'nccl' (expected trtllm, vllm, measured, fixed)
          timeout zero                   | ranksPerPod: 4        | ranksPerPod: 4\\n  timeoutSeconds: 0 | x.yaml: spec.timeoutSeconds: 0 is below the minimum 1
          bad shared memory size         | ranksPerPod: 4        | ranksPerPod: 4\\n  sharedMemorySize: 8GB | x.yaml: spec.sharedMemorySize: '8GB' is not a quantity (e.g. 8Gi, 512Mi)
          baseline without configmap     | ranksPerPod: 4        | ranksPerPod: 4\\n  baseline: {maxSlowdownPercent: 3} | x.yaml: spec.baseline.configMapRef: required
          wrong api version              | gpucomm.dev/v1alpha1  | gpucomm.dev/v1                  | x.yaml: apiVersion: unknown value 'gpucomm.dev/v1' (expected gpucomm.dev/v1alpha1)
          missing api version            | apiVersion: gpucomm.dev/v1alpha1 | apiVersio: x         | x.yaml: apiVersion: required (gpucomm.dev/v1alpha1)
          wrong kind                     | kind: CommJob         | kind: Job                       | x.yaml: kind: unknown value 'Job' (expected CommJob)
          bad job name                   | name: ar-tp4          | name: AR_tp4                    | x.yaml: metadata.name: 'AR_tp4' is not a valid job name (lower-case letters, digits and '-', starting with a letter and ending with a letter or digit: it also names the job's headless Service)
          name starts with a digit       | name: ar-tp4          | name: 1job                      | x.yaml: metadata.name: '1job' is not a valid job name (lower-case letters, digits and '-', starting with a letter and ending with a letter or digit: it also names the job's headless Service)
          missing job name               | name: ar-tp4          | labels: {a: b}                  | x.yaml: metadata.name: required
          job name is a number           | name: ar-tp4          | name: 123                       | x.yaml: metadata.name: expected a string, got '123'
          unknown metadata field         | name: ar-tp4          | name: ar-tp4\\n  frob: 1       | x.yaml: metadata: unknown field 'frob' (known: name, namespace, labels, annotations)
          """)
  void aBadJobIsOneLineNamingTheField(
      String whatIsWrong, String replace, String with, String message) {
    String yaml = VALID.replace(replace, with.replace("\\n", "\n"));
    assertThat(yaml).as("test setup for " + whatIsWrong).isNotEqualTo(VALID);

    assertThatThrownBy(() -> loader.load(yaml, "x.yaml"))
        .isInstanceOf(InvalidJobException.class)
        .hasMessage(message);
  }

  private static final String PROGRAM =
      """
      apiVersion: gpucomm.dev/v1alpha1
      kind: CommJob
      metadata:
        name: rpl-tp4
      spec:
        worldSize: 4
        ranksPerPod: 4
        workload:
          kind: program
          program:
            name: rowParallelLinear
            backend: ipc
      """;

  @Test
  void aProgramKeepsNoSmsForCommunicationUnlessAsked() {
    var program = loader.load(PROGRAM, "p.yaml").job().getSpec().getWorkload().getProgram();
    var asked =
        loader
            .load(
                PROGRAM.replace("backend: ipc", "backend: ipc\n      communicationSMs: 32"),
                "p.yaml")
            .job()
            .getSpec()
            .getWorkload()
            .getProgram();

    assertThat(program.getCommunicationSMs()).isZero();
    assertThat(asked.getCommunicationSMs()).isEqualTo(32);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          -1   | p.yaml: spec.workload.program.communicationSMs: -1 is below the minimum 0
          161  | p.yaml: spec.workload.program.communicationSMs: 161 is above the maximum 160
          many | p.yaml: spec.workload.program.communicationSMs: expected an integer, got 'many'
          """)
  void communicationSmsOutsideZeroTo160AreOneLineNamingTheField(String value, String message) {
    String yaml = PROGRAM.replace("backend: ipc", "backend: ipc\n      communicationSMs: " + value);

    assertThatThrownBy(() -> loader.load(yaml, "p.yaml"))
        .isInstanceOf(InvalidJobException.class)
        .hasMessage(message);
  }

  @Test
  void serializedMatmulsWorkWithAndWithoutAnSmPartition() {
    var program = loader.load(PROGRAM, "p.yaml").job().getSpec().getWorkload().getProgram();
    String alone = PROGRAM.replace("backend: ipc", "backend: ipc\n      serializeMatmuls: true");
    String partitioned =
        alone.replace("serializeMatmuls", "communicationSMs: 48\n      serializeMatmuls");

    assertThat(program.getSerializeMatmuls()).isFalse();
    for (String yaml : List.of(alone, partitioned)) {
      assertThat(
              loader
                  .load(yaml, "p.yaml")
                  .job()
                  .getSpec()
                  .getWorkload()
                  .getProgram()
                  .getSerializeMatmuls())
          .isTrue();
    }
  }

  @Test
  void malformedYamlNamesTheFileLineAndColumn() {
    String yaml = VALID.replace("  ranksPerPod: 4", "   ranksPerPod: 4");

    assertThatThrownBy(() -> loader.load(yaml, "x.yaml"))
        .isInstanceOf(InvalidJobException.class)
        .hasMessage("x.yaml:7:15: malformed YAML: mapping values are not allowed here")
        .hasMessageNotContaining("\n");
  }

  @Test
  void aSecondYamlDocumentIsNotIgnored() {
    assertThatThrownBy(() -> loader.load(VALID + "---\nfoo: [unclosed\n", "x.yaml"))
        .isInstanceOf(InvalidJobException.class)
        .hasMessage(
            "x.yaml:"
                + (VALID.lines().count() + 1) // the second document's "---"
                + ":1: more than one YAML document (a file holds one CommJob)");
  }

  @Test
  void textAfterAJsonJobIsNotIgnored() {
    String json =
        "{\"apiVersion\": \"gpucomm.dev/v1alpha1\", \"kind\": \"CommJob\", \"metadata\":"
            + " {\"name\": \"j\"}, \"spec\": {\"worldSize\": 2, \"workload\": {\"kind\":"
            + " \"benchmark\", \"benchmark\": {\"sizes\": [4096]}}}}";
    assertThatThrownBy(() -> loader.load(json + " {\"a\": 1}", "x.json"))
        .isInstanceOf(InvalidJobException.class)
        .hasMessage("x.json:1:179: text after the CommJob object");
    assertThatThrownBy(() -> loader.load(json + " this is not json }}}", "x.json"))
        .isInstanceOf(InvalidJobException.class)
        .hasMessageStartingWith("x.json:1:183: malformed JSON: ");
  }

  @Test
  void duplicateKeysAreRejected() {
    String yaml = VALID.replace("worldSize: 4", "worldSize: 4\n  worldSize: 2");

    assertThatThrownBy(() -> loader.load(yaml, "x.yaml"))
        .isInstanceOf(InvalidJobException.class)
        .hasMessage("x.yaml:7:3: malformed YAML: duplicate key 'worldSize'");
  }

  @Test
  void aPodTemplateIsAcceptedAndLeftToTheOperator() {
    String yaml =
        VALID.replace(
            "  ranksPerPod: 4",
            "  ranksPerPod: 4\n  template: {spec: {nodeSelector: {gpu: h200}, tolerations: [{key: x}]}}");

    assertThat(loader.load(yaml, "x.yaml").job().getSpec().getTemplate()).isNull();
  }

  @Test
  void anEmptyFileIsNotAJob() {
    assertThatThrownBy(() -> loader.load("  \n", "empty.yaml"))
        .hasMessage("empty.yaml: empty file (expected a CommJob)");
  }

  @Test
  void aMissingFileIsNamed(@TempDir Path dir) {
    assertThatThrownBy(() -> loader.load(dir.resolve("nope.yaml")))
        .hasMessage(dir.resolve("nope.yaml") + ": no such file");
  }

  @Test
  void aFileIsReadFromDisk(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("job.yaml"), VALID);

    assertThat(loader.load(file).source()).isEqualTo(file.toString());
  }
}
