package dev.gpucomm.operator;

import static dev.gpucomm.operator.TestCluster.condition;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.Phase;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Specs the operator refuses: each gets phase Failed, reason InvalidSpec and a one-line message
 * naming the field, and no pod (nor any other object) is created. Fabric8's mock API server does
 * not run the CRD's schema or CEL rules, so these also show what the operator does where they did
 * not run.
 */
@QuarkusTest
@WithKubernetesTestServer(setup = CommJobCrdSetup.class)
class InvalidSpecIT {
  private static final String BENCHMARK =
      "workload: {kind: benchmark, benchmark: {tokens: [32, 64]}}";

  @Inject KubernetesClient client;

  private TestCluster cluster;

  @BeforeEach
  void connect() {
    cluster = new TestCluster(client);
  }

  static Stream<Arguments> invalidSpecs() {
    return Stream.of(
        invalid("no-world", "device: cpu\n" + BENCHMARK, "spec.worldSize: required"),
        invalid(
            "world-zero", "worldSize: 0\n" + BENCHMARK, "spec.worldSize: 0 is below the minimum 1"),
        invalid(
            "ranks-per-pod-17",
            "worldSize: 34\nranksPerPod: 17\n" + BENCHMARK,
            "spec.ranksPerPod: 17 is above the maximum 16"),
        invalid(
            "not-a-multiple",
            "worldSize: 6\nranksPerPod: 4\n" + BENCHMARK,
            "spec.worldSize: 6 is not a multiple of spec.ranksPerPod (4)"),
        invalid(
            "timeout-zero",
            "worldSize: 2\ntimeoutSeconds: 0\n" + BENCHMARK,
            "spec.timeoutSeconds: 0 is below the minimum 1"),
        invalid(
            "shm-8ti",
            "worldSize: 2\nsharedMemorySize: 8Ti\n" + BENCHMARK,
            "spec.sharedMemorySize: '8Ti' is above the maximum 1Ti (it also raises the pod's"
                + " memory limit by as much)"),
        invalid("no-workload", "worldSize: 2", "spec.workload: required"),
        invalid(
            "no-kind",
            "worldSize: 2\nworkload: {benchmark: {tokens: [32]}}",
            "spec.workload.kind: required (benchmark, program, tune, fabric)"),
        invalid(
            "program-missing",
            "worldSize: 2\nworkload: {kind: program}",
            "spec.workload.program: required when spec.workload.kind is program"),
        invalid(
            "program-unsplittable",
            "worldSize: 4\nworkload: {kind: program, program: {name: columnParallelLinear,"
                + " shape: {m: 66}}}",
            "spec.workload.program.shape.m: 66 is not a multiple of spec.worldSize (4)"),
        invalid(
            "two-sections",
            "worldSize: 2\nworkload: {kind: benchmark, benchmark: {tokens: [32]}, tune: {}}",
            "spec.workload.tune: set but spec.workload.kind is benchmark"),
        invalid(
            "tokens-and-sizes",
            "worldSize: 2\nworkload: {kind: benchmark, benchmark: {tokens: [32], sizes: [1024]}}",
            "spec.workload.benchmark: needs exactly one of tokens and sizes"),
        invalid(
            "odd-size",
            "worldSize: 2\nworkload: {kind: benchmark, benchmark: {sizes: [1024, 1000]}}",
            "spec.workload.benchmark.sizes[1]: 1000 bytes is not a multiple of 16"),
        invalid(
            "size-twice",
            "worldSize: 2\nworkload: {kind: benchmark, benchmark: {sizes: [1024, 4096, 1024]}}",
            "spec.workload.benchmark.sizes[2]: '1024' is listed twice"),
        invalid(
            "zero-tokens",
            "worldSize: 2\nworkload: {kind: benchmark, benchmark: {tokens: [0, 32]}}",
            "spec.workload.benchmark.tokens[0]: 0 is below the minimum 1"),
        invalid(
            "buffer-too-big",
            "worldSize: 2\nworkload: {kind: benchmark, benchmark: {tokens: [32, 1048576]}}",
            "spec.workload.benchmark.tokens[1]: 1048576 tokens x hiddenSize 8192 x 2 bytes (bf16) ="
                + " 17179869184 bytes is above the 8589934592-byte limit of one rank's buffer"),
        invalid(
            "oneshot-across-pods",
            "worldSize: 16\nranksPerPod: 8\n"
                + "workload: {kind: benchmark, benchmark: {tokens: [32], algorithms: [nccl, oneshot]}}",
            "spec.workload.benchmark.algorithms[1]: oneshot exchanges buffers among the ranks of one"
                + " pod, but spec.worldSize (16) spans 2 pods of spec.ranksPerPod (8); use nccl or"
                + " auto"),
        invalid(
            "ring-on-cuda",
            "worldSize: 4\nranksPerPod: 4\ndevice: cuda\n"
                + "workload: {kind: benchmark, benchmark: {tokens: [32], algorithms: [ring]}}",
            "spec.workload.benchmark.algorithms[0]: ring is the cpu device's stand-in for NCCL; on"
                + " device cuda use nccl"),
        invalid(
            "in-place-allgather",
            "worldSize: 2\n"
                + "workload: {kind: benchmark, benchmark: {tokens: [32], collective: allgather,"
                + " inPlace: true}}",
            "spec.workload.benchmark.inPlace: applies to allreduce only (allgather's output is not the"
                + " shape of its input)"),
        invalid(
            "in-place-oneshot",
            "worldSize: 2\nranksPerPod: 2\n"
                + "workload: {kind: benchmark, benchmark: {tokens: [32], inPlace: true,"
                + " algorithms: [auto, oneshot]}}",
            "spec.workload.benchmark.algorithms[1]: oneshot does not run in place (a rank's peers"
                + " read its input while it would overwrite it); with inPlace use nccl, ring or"
                + " auto"),
        invalid(
            "algorithm-twice",
            "worldSize: 2\n"
                + "workload: {kind: benchmark, benchmark: {tokens: [32], algorithms: [nccl, auto, nccl]}}",
            "spec.workload.benchmark.algorithms[2]: 'nccl' is listed twice"),
        invalid(
            "no-iterations",
            "worldSize: 2\nworkload: {kind: benchmark, benchmark: {tokens: [32], iterations: 0}}",
            "spec.workload.benchmark.iterations: 0 is below the minimum 1"),
        invalid(
            "fixed-without-algorithm",
            "worldSize: 2\nheuristic: {name: fixed}\n" + BENCHMARK,
            "spec.heuristic.fixedAlgorithm: required when spec.heuristic.name is fixed"),
        invalid(
            "fixed-auto",
            "worldSize: 2\nheuristic: {name: fixed, fixedAlgorithm: auto}\n" + BENCHMARK,
            "spec.heuristic.fixedAlgorithm: auto cannot be fixed (name an algorithm)"),
        invalid(
            "fixed-algorithm-unused",
            "worldSize: 2\nheuristic: {name: vllm, fixedAlgorithm: twoshot}\n" + BENCHMARK,
            "spec.heuristic.fixedAlgorithm: set but spec.heuristic.name is vllm (only fixed uses it)"),
        invalid(
            "measured-without-table",
            "worldSize: 2\nheuristic: {name: measured}\n" + BENCHMARK,
            "spec.heuristic.tuningRef: required when spec.heuristic.name is measured"),
        invalid(
            "baseline-bad-name",
            "worldSize: 2\nbaseline: {configMapRef: Nightly_Baseline}\n" + BENCHMARK,
            "spec.baseline.configMapRef: 'Nightly_Baseline' is not a valid ConfigMap name"),
        invalid(
            "baseline-for-program",
            "worldSize: 2\nbaseline: {configMapRef: nightly}\n"
                + "workload: {kind: program, program: {name: rowParallelLinear}}",
            "spec.baseline: compares benchmark reports, but spec.workload.kind is program"),
        invalid(
            "shm-not-a-quantity",
            "worldSize: 2\nsharedMemorySize: 8 GB\n" + BENCHMARK,
            "spec.sharedMemorySize: '8 GB' is not a quantity (e.g. 8Gi, 512Mi)"),
        invalid(
            "shm-too-small",
            "worldSize: 2\nsharedMemorySize: 16Mi\n" + BENCHMARK,
            "spec.sharedMemorySize: 16Mi is below the minimum 64Mi (the container default, which NCCL"
                + " already outgrows)"),
        invalid(
            "shm-over-memory-limit",
            "worldSize: 2\nsharedMemorySize: 32Gi\n"
                + BENCHMARK
                + "\ntemplate: {spec: {containers: [{resources: {limits: {memory: 16Gi}}}]}}",
            "spec.sharedMemorySize exceeds spec.template.spec.containers[0].resources.limits.memory"
                + " (16Gi): the pages of /dev/shm count against the container's memory limit"),
        invalid(
            "host-ipc",
            "worldSize: 2\n" + BENCHMARK + "\ntemplate: {spec: {hostIPC: true}}",
            "spec.template.spec.hostIPC is not supported in the pod template overlay (supported: "
                + SUPPORTED
                + ")"),
        invalid(
            "privileged",
            "worldSize: 2\n"
                + BENCHMARK
                + "\ntemplate: {spec: {containers: [{securityContext: {privileged: true}}]}}",
            "spec.template.spec.containers[0].securityContext.privileged is not supported in the pod"
                + " template overlay (supported: "
                + SUPPORTED
                + ")"),
        invalid(
            "sys-admin",
            "worldSize: 2\n"
                + BENCHMARK
                + "\ntemplate: {spec: {containers: [{securityContext: {capabilities: {add:"
                + " [IPC_LOCK, SYS_ADMIN]}}}]}}",
            "spec.template.spec.containers[0].securityContext.capabilities.add[1] (SYS_ADMIN) is"
                + " not one a rank container may add (supported: IPC_LOCK, SYS_RESOURCE)"),
        invalid(
            "resource-typo",
            "worldSize: 2\n"
                + BENCHMARK
                + "\ntemplate: {spec: {containers: [{resources: {limits: {rdma/ib: 1, nvidia.com/gpus:"
                + " 1}}}]}}",
            "spec.template.spec.containers[0].resources.limits[\"nvidia.com/gpus\"] is not a"
                + " resource a rank container may name (supported: cpu, memory,"
                + " ephemeral-storage, hugepages-*, nvidia.com/gpu, nvidia.com/hostdev, rdma/*,"
                + " vpc.amazonaws.com/efa)"),
        invalid(
            "undeclared-claim",
            "worldSize: 2\n"
                + BENCHMARK
                + "\ntemplate: {spec: {containers: [{resources: {claims: [{name: imex}]}}]}}",
            "spec.template.spec.containers[0].resources.claims[0] (imex) names no entry of"
                + " spec.template.spec.resourceClaims"),
        invalid(
            "two-containers",
            "worldSize: 2\n"
                + BENCHMARK
                + "\ntemplate: {spec: {containers: [{image: a}, {name: sidecar, image: b}]}}",
            "spec.template.spec.containers has 2 entries; the overlay takes one (the gpucomm"
                + " container)"),
        invalid(
            "contract-env",
            "worldSize: 2\n"
                + BENCHMARK
                + "\ntemplate: {spec: {containers: [{env: [{name: WORLD_SIZE, value: '4'}]}]}}",
            "spec.template.spec.containers[0].env[0] (WORLD_SIZE) is set by the operator"),
        invalid(
            "shm-mount",
            "worldSize: 2\n"
                + BENCHMARK
                + "\ntemplate: {spec: {volumes: [{name: shm, emptyDir: {}}], containers:"
                + " [{volumeMounts: [{name: shm, mountPath: /dev/shm}]}]}}",
            "spec.template.spec.containers[0].volumeMounts[0] mounts /dev/shm, which the operator"
                + " mounts (size it with spec.sharedMemorySize)"),
        invalid(
            "shm-subpath-mount",
            "worldSize: 2\n"
                + BENCHMARK
                + "\ntemplate: {spec: {volumes: [{name: cfg, emptyDir: {}}], containers:"
                + " [{volumeMounts: [{name: cfg, mountPath: /etc/gpucomm/job.json, subPath: a}]}]}}",
            "spec.template.spec.containers[0].volumeMounts[0] mounts /etc/gpucomm/job.json, which"
                + " the operator mounts"),
        invalid(
            "nameless-entries",
            "worldSize: 2\n"
                + BENCHMARK
                + "\ntemplate: {spec: {volumes: [{emptyDir: {}}], containers: [{env: [{value: x}],"
                + " volumeMounts: [{mountPath: /data}]}]}}",
            "spec.template.spec.containers[0].env[0] has no name; spec.template.spec.containers[0]"
                + ".volumeMounts[0] needs a name and a mountPath; spec.template.spec.volumes[0] has"
                + " no name"),
        invalid(
            "quantity-not-a-number",
            "worldSize: 2\n"
                + BENCHMARK
                + "\ntemplate: {spec: {containers: [{resources: {limits: {memory: two,"
                + " nvidia.com/gpu: 1e}}}]}}",
            "spec.template.spec.containers[0].resources.limits[\"memory\"] (two) is not a quantity"
                + " (e.g. 8Gi, 500m, 2); spec.template.spec.containers[0].resources.limits"
                + "[\"nvidia.com/gpu\"] (1e) is not a quantity (e.g. 8Gi, 500m, 2)"),
        invalid(
            "reserved-label",
            "worldSize: 2\n"
                + BENCHMARK
                + "\ntemplate: {metadata: {labels: {gpucomm.dev/job-uid: mine}}}",
            "spec.template.metadata.labels sets gpucomm.dev/job-uid, which the operator sets"),
        invalid(
            "reserved-volume",
            "worldSize: 2\n"
                + BENCHMARK
                + "\ntemplate: {spec: {volumes: [{name: dshm, emptyDir: {}}]}}",
            "spec.template.spec.volumes[0] is named dshm, a name the operator uses"),
        invalid(
            "gpu-count",
            "worldSize: 8\nranksPerPod: 8\n"
                + BENCHMARK
                + "\ntemplate: {spec: {containers: [{resources: {limits: {nvidia.com/gpu: 4}}}]}}",
            "spec.template.spec.containers[0].resources.limits[\"nvidia.com/gpu\"] (4) must equal"
                + " spec.ranksPerPod (8) or be left out"),
        invalid(
            "8gpu-sweep",
            "worldSize: 8\n" + BENCHMARK,
            "metadata.name: '8gpu-sweep' is not a valid job name (lower-case letters, digits and"
                + " '-', starting with a letter and ending with a letter or digit: it also names"
                + " the job's headless Service)"),
        invalid(
            "llama-3.1-sweep",
            "worldSize: 8\n" + BENCHMARK,
            "metadata.name: 'llama-3.1-sweep' is not a valid job name (lower-case letters, digits"
                + " and '-', starting with a letter and ending with a letter or digit: it also"
                + " names the job's headless Service)"),
        invalid(
            "a-very-long-name-for-a-sweep-of-all-reduce-over-every-gpu-here",
            "worldSize: 4096\nranksPerPod: 8\n" + BENCHMARK,
            "metadata.name: 'a-very-long-name-for-a-sweep-of-all-reduce-over-every-gpu-here' is 62"
                + " characters long, at most 52 (the names of the job's pods and ConfigMaps are"
                + " made from it)"),
        invalid(
            "a-name-for-a-sweep-of-all-reduce-that-the-ranks-refuse",
            "worldSize: 8\n" + BENCHMARK,
            "metadata.name: 'a-name-for-a-sweep-of-all-reduce-that-the-ranks-refuse' is 54"
                + " characters long, at most 52 (the names of the job's pods and ConfigMaps are"
                + " made from it)"),
        invalid(
            "odd-hidden",
            "worldSize: 2\nworkload: {kind: benchmark, benchmark: {tokens: [1], hiddenSize: 7}}",
            "spec.workload.benchmark.tokens[0]: 1 tokens x hiddenSize 7 x 2 bytes (bf16) = 14 bytes"
                + " is not a multiple of 16"),
        invalid(
            "report-dir-env",
            "worldSize: 2\n"
                + BENCHMARK
                + "\ntemplate: {spec: {containers: [{env: [{name: GPUCOMM_REPORT_DIR, value: /x}]}]}}",
            "spec.template.spec.containers[0].env[0] (GPUCOMM_REPORT_DIR) is set by the operator"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidSpecs")
  void anInvalidSpecFailsWithAMessageNamingTheFieldAndStartsNoPod(
      String name, String spec, String message) {
    cluster.apply("metadata: {name: " + name + "}\nspec:\n" + spec.indent(2));

    CommJobStatus status = cluster.awaitStatus(name, s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(status, "Failed").getReason()).isEqualTo("InvalidSpec");
    assertThat(condition(status, "Failed").getMessage()).isEqualTo(message);
    assertThat(status.getStartTime()).isNull();
    assertThat(cluster.pods(name)).isEmpty();
    assertThat(cluster.configMap(name + "-spec")).isNull();
    assertThat(client.services().withName(name).get()).isNull();
  }

  @Test
  void aTemplateValueThatCannotBeReadFailsItsJobAndNotTheOperatorsWatch() {
    // The CRD types quantities as int-or-string, so the API server keeps "1e5x" where one goes;
    // created untyped, as kubectl would, since a typed client could not have sent it.
    client
        .genericKubernetesResources("gpucomm.dev/v1alpha1", "CommJob")
        .inNamespace(cluster.namespace)
        .resource(
            client
                .getKubernetesSerialization()
                .unmarshal(
                    "apiVersion: gpucomm.dev/v1alpha1\nkind: CommJob\nmetadata: {name: unreadable-quantity}\n"
                        + "spec:\n  worldSize: 2\n  "
                        + BENCHMARK
                        + "\n  template: {spec: {containers: [{resources: {limits: {memory: 1e5x}}}]}}",
                    GenericKubernetesResource.class))
        .create();

    CommJobStatus status =
        cluster.awaitStatus("unreadable-quantity", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(status, "Failed").getReason()).isEqualTo("InvalidSpec");
    assertThat(condition(status, "Failed").getMessage())
        .isEqualTo(
            "spec.template.spec.containers[0].resources.limits.memory: cannot be read (Invalid"
                + " quantity string format passed)");
    assertThat(cluster.pods("unreadable-quantity")).isEmpty();
  }

  /** What the overlay takes, as every message about a field it does not take lists it. */
  private static final String SUPPORTED =
      "metadata.labels, metadata.annotations, spec.nodeSelector, spec.tolerations, spec.affinity,"
          + " spec.schedulerName, spec.priorityClassName, spec.runtimeClassName,"
          + " spec.imagePullSecrets, spec.topologySpreadConstraints, spec.volumes,"
          + " spec.hostNetwork, spec.resourceClaims and, in spec.containers[0], image,"
          + " imagePullPolicy, resources, env, envFrom, volumeMounts,"
          + " securityContext.capabilities.add";

  private static Arguments invalid(String name, String spec, String message) {
    return Arguments.of(name, spec, message);
  }
}
