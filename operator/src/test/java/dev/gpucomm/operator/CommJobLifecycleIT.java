package dev.gpucomm.operator;

import static dev.gpucomm.api.v1alpha1.report.TestReports.timing;
import static dev.gpucomm.operator.TestCluster.condition;
import static dev.gpucomm.operator.TestCluster.hasCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.Phase;
import dev.gpucomm.api.v1alpha1.report.TestReports;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A CommJob's life against the mock API server: objects, phases, results, failures. */
@QuarkusTest
@WithKubernetesTestServer(setup = CommJobCrdSetup.class)
class CommJobLifecycleIT {
  @Inject KubernetesClient client;

  private TestCluster cluster;

  @BeforeEach
  void connect() {
    cluster = new TestCluster(client);
  }

  @Test
  void aJobGetsItsConfigMapsHeadlessServiceRbacAndOnePodPerNode() throws Exception {
    CommJob job =
        cluster.apply(
            """
            metadata: {name: ar-tp8}
            spec:
              worldSize: 8
              ranksPerPod: 4
              device: cuda
              sharedMemorySize: 16Gi
              workload:
                kind: benchmark
                benchmark: {collective: allreduce, tokens: [32, 1024], algorithms: [auto, nccl]}
              template:
                metadata: {labels: {team: inference}, annotations: {note: nightly}}
                spec:
                  nodeSelector: {nvidia.com/gpu.product: NVIDIA-H200}
                  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
                  schedulerName: volcano
                  priorityClassName: gpu-benchmarks
                  volumes: [{name: nccl-topology, configMap: {name: nccl-topology}}]
                  containers:
                  - image: registry.example/gpucomm-runtime:dev
                    env: [{name: NCCL_DEBUG, value: INFO}]
                    resources: {limits: {memory: 64Gi}, requests: {cpu: "8"}}
                    volumeMounts: [{name: nccl-topology, mountPath: /etc/nccl}]
            """);

    List<Pod> pods = cluster.awaitPods("ar-tp8", "ar-tp8-0", "ar-tp8-1");

    ConfigMap spec = cluster.configMap("ar-tp8-spec");
    JsonNode jobJson = new ObjectMapper().readTree(spec.getData().get("job.json"));
    assertThat(jobJson.path("kind").asText()).isEqualTo("CommJob");
    assertThat(jobJson.path("metadata").path("name").asText()).isEqualTo("ar-tp8");
    assertThat(jobJson.path("spec").path("worldSize").asInt()).isEqualTo(8);
    assertThat(jobJson.path("spec").path("workload").path("benchmark").path("tokens").toString())
        .isEqualTo("[32,1024]");
    assertThat(jobJson.has("status")).isFalse();
    assertThat(cluster.configMap("ar-tp8-results").getData()).isNullOrEmpty();

    Service service = client.services().withName("ar-tp8").get();
    assertThat(service.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(service.getSpec().getPublishNotReadyAddresses()).isTrue();
    assertThat(service.getSpec().getSelector())
        .containsExactly(Map.entry("gpucomm.dev/job", "ar-tp8"));

    ServiceAccount account = client.serviceAccounts().withName("ar-tp8-reporter").get();
    Role role = client.rbac().roles().withName("ar-tp8-reporter").get();
    assertThat(role.getRules()).hasSize(1);
    PolicyRule rule = role.getRules().get(0);
    assertThat(rule.getApiGroups()).containsExactly("");
    assertThat(rule.getResources()).containsExactly("configmaps");
    assertThat(rule.getResourceNames()).containsExactly("ar-tp8-results");
    assertThat(rule.getVerbs()).containsExactly("get", "update", "patch");
    RoleBinding binding = client.rbac().roleBindings().withName("ar-tp8-reporter").get();
    assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
    assertThat(binding.getRoleRef().getName()).isEqualTo("ar-tp8-reporter");
    assertThat(binding.getSubjects())
        .extracting("kind", "name", "namespace")
        .containsExactly(tuple("ServiceAccount", "ar-tp8-reporter", cluster.namespace));

    for (HasMetadata owned :
        List.of(
            spec,
            cluster.configMap("ar-tp8-results"),
            service,
            account,
            role,
            binding,
            pods.get(0),
            pods.get(1))) {
      assertThat(owned.getMetadata().getLabels())
          .as("labels of %s", owned.getMetadata().getName())
          .containsEntry("gpucomm.dev/job", "ar-tp8")
          .containsEntry("gpucomm.dev/job-uid", job.getMetadata().getUid())
          .containsEntry("app.kubernetes.io/name", "gpucomm")
          .doesNotContainKey("app.kubernetes.io/instance")
          .containsEntry("app.kubernetes.io/managed-by", "gpucomm-operator");
      assertThat(owned.getMetadata().getOwnerReferences())
          .as("owner of %s", owned.getMetadata().getName())
          .singleElement()
          .satisfies(owner -> assertOwnedBy(owner, job));
    }

    Pod pod1 = pods.get(1);
    assertThat(pod1.getMetadata().getLabels())
        .containsEntry("gpucomm.dev/pod-index", "1")
        .containsEntry("team", "inference");
    assertThat(pod1.getMetadata().getAnnotations())
        .containsEntry("note", "nightly")
        // an autoscaler saving money must not take a running rank's node away
        .containsEntry("karpenter.sh/do-not-disrupt", "true")
        .containsEntry("cluster-autoscaler.kubernetes.io/safe-to-evict", "false");
    assertThat(pod1.getSpec().getHostname()).isEqualTo("ar-tp8-1");
    assertThat(pod1.getSpec().getSubdomain()).isEqualTo("ar-tp8");
    assertThat(pod1.getSpec().getRestartPolicy()).isEqualTo("Never");
    assertThat(pod1.getSpec().getServiceAccountName()).isEqualTo("ar-tp8-reporter");
    assertThat(pod1.getSpec().getHostIPC()).isNotEqualTo(Boolean.TRUE);
    assertThat(pod1.getSpec().getHostNetwork()).isNotEqualTo(Boolean.TRUE);
    assertThat(pod1.getSpec().getHostPID()).isNotEqualTo(Boolean.TRUE);
    assertThat(pod1.getSpec().getNodeSelector())
        .containsExactly(Map.entry("nvidia.com/gpu.product", "NVIDIA-H200"));
    assertThat(pod1.getSpec().getTolerations())
        .extracting("key", "operator", "effect")
        .containsExactly(tuple("nvidia.com/gpu", "Exists", "NoSchedule"));
    assertThat(pod1.getSpec().getSchedulerName()).isEqualTo("volcano");
    assertThat(pod1.getSpec().getPriorityClassName()).isEqualTo("gpu-benchmarks");
    assertThat(pod1.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod1.getSpec().getSecurityContext().getSeccompProfile().getType())
        .isEqualTo("RuntimeDefault");

    Volume shm = volume(pod1, "dshm");
    assertThat(shm.getEmptyDir().getMedium()).isEqualTo("Memory");
    assertThat(shm.getEmptyDir().getSizeLimit()).isEqualTo(new Quantity("16Gi"));
    assertThat(volume(pod1, "job-spec").getConfigMap().getName()).isEqualTo("ar-tp8-spec");
    assertThat(volume(pod1, "nccl-topology").getConfigMap().getName()).isEqualTo("nccl-topology");

    assertThat(pod1.getSpec().getContainers()).hasSize(1);
    Container container = pod1.getSpec().getContainers().get(0);
    assertThat(container.getName()).isEqualTo("gpucomm");
    assertThat(container.getImage()).isEqualTo("registry.example/gpucomm-runtime:dev");
    assertThat(container.getCommand()).containsExactly("gpucomm");
    assertThat(container.getArgs()).containsExactly("launch");
    assertThat(container.getEnv())
        .extracting(EnvVar::getName, EnvVar::getValue)
        .containsExactly(
            tuple("GPUCOMM_JOB", "ar-tp8"),
            tuple("GPUCOMM_NAMESPACE", cluster.namespace),
            tuple("GPUCOMM_POD_INDEX", "1"),
            tuple("GPUCOMM_RANKS_PER_POD", "4"),
            tuple("GPUCOMM_WORLD_SIZE", "8"),
            tuple("GPUCOMM_RENDEZVOUS", "ar-tp8-0.ar-tp8." + cluster.namespace + ".svc:29500"),
            tuple("GPUCOMM_RESTART_ATTEMPT", "0"),
            tuple("GPUCOMM_RUN_ID", job.getMetadata().getUid() + "/0"),
            tuple("GPUCOMM_NODE_NAME", null),
            tuple("GPUCOMM_POD_NAME", null),
            tuple("NCCL_DEBUG", "INFO"));
    // the node and pod names come from the downward API: a reader of the report finds the node
    assertThat(container.getEnv())
        .filteredOn(env -> env.getValueFrom() != null)
        .extracting(env -> env.getValueFrom().getFieldRef().getFieldPath())
        .containsExactly("spec.nodeName", "metadata.name");
    assertThat(container.getResources().getLimits())
        .containsEntry("nvidia.com/gpu", new Quantity("4"))
        .containsEntry("memory", new Quantity("64Gi"));
    assertThat(container.getResources().getRequests()).containsEntry("cpu", new Quantity("8"));
    assertThat(container.getVolumeMounts())
        .extracting("name", "mountPath", "readOnly")
        .containsExactly(
            tuple("job-spec", "/etc/gpucomm", true),
            tuple("dshm", "/dev/shm", null),
            tuple("nccl-topology", "/etc/nccl", null));
    assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(container.getSecurityContext().getPrivileged()).isFalse();
    assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(container.getTerminationMessagePolicy()).isEqualTo("FallbackToLogsOnError");

    CommJobStatus status = cluster.awaitStatus("ar-tp8", s -> s.getStartTime() != null);
    assertThat(status.getPhase()).isEqualTo(Phase.PENDING);
    assertThat(status.getObservedGeneration()).isEqualTo(1L);
    assertThat(condition(status, "Ready").getReason()).isEqualTo("PodsPending");
    assertThat(condition(status, "Succeeded").getStatus()).isEqualTo("False");
    assertThat(condition(status, "Failed").getStatus()).isEqualTo("False");
    assertThat(status.getConditions())
        .allSatisfy(c -> assertThat(c.getObservedGeneration()).isEqualTo(1L));
  }

  @Test
  void podPhasesDriveTheStatusAndTheReportFillsTheSummary() {
    cluster.apply(
        """
        metadata: {name: sweep}
        spec:
          worldSize: 4
          ranksPerPod: 2
          device: cpu
          workload:
            kind: benchmark
            benchmark: {sizes: [524288, 8388608], algorithms: [auto, ring]}
        """);
    cluster.awaitPods("sweep", "sweep-0", "sweep-1");
    CommJobStatus pending = cluster.awaitStatus("sweep", s -> s.getPhase() == Phase.PENDING);
    String failedSince = condition(pending, "Failed").getLastTransitionTime();

    cluster.kubelet.run("sweep-0");
    CommJobStatus oneRunning = cluster.awaitStatus("sweep", s -> s.getPhase() == Phase.RUNNING);
    assertThat(condition(oneRunning, "Ready").getStatus()).isEqualTo("False");
    assertThat(condition(oneRunning, "Ready").getMessage())
        .isEqualTo("1 of 2 pods running, 1 pending");

    cluster.kubelet.run("sweep-1");
    CommJobStatus running =
        cluster.awaitStatus("sweep", s -> hasCondition(s, "Ready", "True", "PodsRunning"));
    assertThat(condition(running, "Ready").getMessage()).isEqualTo("2 of 2 pods running");
    assertThat(condition(running, "Failed").getLastTransitionTime())
        .as("a condition whose status did not change keeps its transition time")
        .isEqualTo(failedSince);

    cluster.kubelet.succeed("sweep-1");
    cluster.publishReport(
        "sweep",
        TestReports.allreduce("sweep")
            .size(
                524288,
                null,
                "ring",
                timing("auto", 31.0, null, 28.0),
                timing("ring", 30.0, null, 29.0))
            .size(
                8388608,
                null,
                "ring",
                timing("auto", 140.0, null, 100.0),
                timing("ring", 139.0, null, 101.0))
            .json());
    cluster.kubelet.succeed("sweep-0");

    CommJobStatus done =
        cluster.awaitStatus(
            "sweep", s -> s.getPhase() == Phase.SUCCEEDED && s.getSummary() != null);
    assertThat(done.getCompletionTime()).isNotNull();
    assertThat(done.getBest()).isEqualTo("ring");
    assertThat(done.getReportRef()).isEqualTo("sweep-results");
    assertThat(done.getSummary())
        .extracting("bytes", "chosen", "best", "latencyMicros", "chosenLatencyMicros")
        .containsExactly(
            tuple(524288L, "ring", "ring", 30.0, 30.0),
            tuple(8388608L, "ring", "ring", 139.0, 139.0));
    assertThat(condition(done, "Succeeded").getReason()).isEqualTo("AllRanksSucceeded");
    assertThat(condition(done, "Succeeded").getMessage())
        .isEqualTo("all 4 ranks in 2 pods succeeded");
    assertThat(condition(done, "Ready").getReason()).isEqualTo("JobFinished");
    assertThat(condition(done, "Failed").getLastTransitionTime()).isEqualTo(failedSince);
    assertThat(cluster.pods("sweep"))
        .as("a succeeded job keeps its pods (and their logs)")
        .hasSize(2);
  }

  @Test
  void aRunSlowerThanItsBaselineIsRegressedNamingTheSizes() {
    cluster.createConfigMap(
        "nightly-baseline",
        "report.json",
        TestReports.allreduce("nightly")
            .size(
                524288,
                32,
                "oneshot",
                timing("oneshot", 6.0, 5.0, 40.0),
                timing("nccl", 14.0, 12.0, 20.0))
            .size(
                2097152,
                128,
                "oneshot",
                timing("oneshot", 12.0, 10.0, 80.0),
                timing("nccl", 20.0, 18.0, 45.0))
            .size(
                8388608,
                512,
                "twoshot",
                timing("twoshot", 40.0, 35.0, 200.0),
                timing("nccl", 50.0, 45.0, 180.0))
            .json());
    runToSuccess(
        "slower",
        "{configMapRef: nightly-baseline, maxSlowdownPercent: 5}",
        TestReports.allreduce("slower")
            .size(
                524288,
                32,
                "oneshot",
                timing("oneshot", 6.0, 5.6, 36.0),
                timing("nccl", 14.0, 12.0, 20.0))
            .size(
                2097152,
                128,
                "oneshot",
                timing("oneshot", 12.0, 10.4, 77.0),
                timing("nccl", 20.0, 18.0, 45.0))
            .size(
                8388608,
                512,
                "twoshot",
                timing("twoshot", 40.0, 38.5, 182.0),
                timing("nccl", 50.0, 45.0, 180.0))
            .fabric("world", 0)
            .fabric("world", 1)
            .fabric("across-pods", 0));

    CommJobStatus status =
        cluster.awaitStatus(
            "slower", s -> hasCondition(s, "Regressed", "True", "SlowerThanBaseline"));
    assertThat(status.getBest()).isEqualTo("twoshot");
    assertThat(status.getFabric())
        .containsExactly(
            "world, ranks 0,1: inter-node ib via mlx5_0",
            "across-pods, rank 0: inter-node ib via mlx5_0");
    assertThat(status.getSummary())
        .extracting("collective", "bytes", "tokens", "chosen", "best", "latencyMicros")
        .containsExactly(
            tuple("allreduce", 524288L, 32, "oneshot", "oneshot", 5.6),
            tuple("allreduce", 2097152L, 128, "oneshot", "oneshot", 10.4),
            tuple("allreduce", 8388608L, 512, "twoshot", "twoshot", 38.5));
    // nccl-tests' busbw of the report's 8 ranks: bytes / time x 2(n-1)/n
    assertThat(status.getSummary().get(0).getBusBandwidthGBps())
        .isCloseTo(524288 / 5.6e3 * 1.75, within());
    assertThat(status.getSummary().get(0).getSpeedupVsNccl()).isCloseTo(12.0 / 5.6, within());
    assertThat(status.getSummary().get(0).getChosenLatencyMicros()).isEqualTo(5.6);
    assertThat(condition(status, "Regressed").getMessage())
        .isEqualTo(
            "2 of 3 sizes slower than baseline nightly-baseline by more than 5% (best latency per"
                + " size): 524288 B +12.0% (5.00 -> 5.60 us), 8388608 B +10.0% (35.00 -> 38.50 us)");
  }

  @Test
  void aRunWithinItsBaselineIsNotRegressed() {
    cluster.createConfigMap("steady-baseline", "report.json", halfMiBAt("nightly", 5.0).json());
    runToSuccess(
        "steady",
        "{configMapRef: steady-baseline, maxSlowdownPercent: 5}",
        halfMiBAt("steady", 5.2));

    CommJobStatus status =
        cluster.awaitStatus("steady", s -> hasCondition(s, "Regressed", "False", "WithinBaseline"));
    assertThat(condition(status, "Regressed").getMessage())
        .isEqualTo("all 1 sizes within 5% of baseline steady-baseline (best latency per size)");
  }

  @Test
  void aBaselineCreatedAfterTheJobFinishedIsComparedOnceItAppears() {
    runToSuccess(
        "early", "{configMapRef: late-baseline, maxSlowdownPercent: 5}", halfMiBAt("early", 5.1));
    CommJobStatus waiting =
        cluster.awaitStatus(
            "early", s -> hasCondition(s, "Regressed", "Unknown", "BaselineNotFound"));
    assertThat(waiting.getPhase()).isEqualTo(Phase.SUCCEEDED);

    cluster.createConfigMap("late-baseline", "report.json", halfMiBAt("nightly", 5.0).json());

    CommJobStatus compared =
        cluster.awaitStatus("early", s -> hasCondition(s, "Regressed", "False", "WithinBaseline"));
    assertThat(condition(compared, "Regressed").getMessage())
        .isEqualTo("all 1 sizes within 5% of baseline late-baseline (best latency per size)");
  }

  @Test
  void aFailedRankFailsTheJobNamingItAndTheOtherPodsAreDeleted() {
    cluster.apply(
        """
        metadata: {name: rank-dies}
        spec:
          worldSize: 3
          device: cpu
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);
    cluster.awaitPods("rank-dies", "rank-dies-0", "rank-dies-1", "rank-dies-2");
    cluster.kubelet.run("rank-dies-0");
    cluster.kubelet.run("rank-dies-1");
    cluster.kubelet.run("rank-dies-2");
    cluster.awaitStatus("rank-dies", s -> s.getPhase() == Phase.RUNNING);

    cluster.kubelet.fail(
        "rank-dies-1",
        1,
        "rank 1: allreduce twoshot at 65536 bytes: peer rank 2 did not reach the barrier within 30 s");

    CommJobStatus failed = cluster.awaitStatus("rank-dies", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(failed, "Failed").getReason()).isEqualTo("RankFailed");
    assertThat(condition(failed, "Failed").getMessage())
        .isEqualTo(
            "pod rank-dies-1 (rank 1) failed: exit code 1: rank 1: allreduce twoshot at 65536"
                + " bytes: peer rank 2 did not reach the barrier within 30 s");
    assertThat(failed.getCompletionTime()).isNotNull();
    cluster.awaitPods("rank-dies", "rank-dies-1");
  }

  @Test
  void aJobNotFinishedAfterTimeoutSecondsFailsWithTimeout() {
    cluster.apply(
        """
        metadata: {name: hangs}
        spec:
          worldSize: 2
          device: cpu
          timeoutSeconds: 1
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);
    // the pods run but never finish: ranks waiting on each other, say
    cluster.awaitPods("hangs", "hangs-0", "hangs-1");
    cluster.kubelet.run("hangs-0");
    cluster.kubelet.run("hangs-1");

    CommJobStatus failed = cluster.awaitStatus("hangs", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(failed, "Failed").getReason()).isEqualTo("Timeout");
    assertThat(condition(failed, "Failed").getMessage())
        .isEqualTo("not finished after 1 s (spec.timeoutSeconds): 2 of 2 pods running");
    assertThat(failed.getStartTime()).isNotNull();
    cluster.awaitPods("hangs");
  }

  @Test
  void aPodThatCannotBeScheduledFailsTheJobWithTheSchedulersMessage() {
    cluster.apply(
        """
        metadata: {name: no-gpus}
        spec:
          worldSize: 8
          ranksPerPod: 4
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);
    cluster.awaitPods("no-gpus", "no-gpus-0", "no-gpus-1");
    cluster.kubelet.run("no-gpus-0");
    // unschedulable for three seconds less than the limit: the operator must come back on its
    // own (one second less left a busy machine too little time to see the job still running)
    cluster.kubelet.unschedulable(
        "no-gpus-1",
        Instant.now().minusSeconds(297),
        "0/4 nodes are available: 4 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are"
            + " available: 4 No preemption victims found for incoming pod.");
    CommJobStatus waiting = cluster.awaitStatus("no-gpus", s -> s.getPhase() == Phase.RUNNING);
    assertThat(condition(waiting, "Failed").getStatus()).isEqualTo("False");

    CommJobStatus failed = cluster.awaitStatus("no-gpus", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(failed, "Failed").getReason()).isEqualTo("Unschedulable");
    assertThat(condition(failed, "Failed").getMessage())
        .isEqualTo(
            "pod no-gpus-1 (ranks 4-7) could not be scheduled within 300 s: 0/4 nodes are"
                + " available: 4 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available:"
                + " 4 No preemption victims found for incoming pod.");
    cluster.awaitPods("no-gpus");
  }

  @Test
  void aPodHeldBackBySchedulingGatesKeepsWaitingPastTheUnschedulableLimit() {
    cluster.apply(
        """
        metadata: {name: queued}
        spec:
          worldSize: 8
          ranksPerPod: 4
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);
    cluster.awaitPods("queued", "queued-0", "queued-1");
    // a queue (Kueue) gates the pod until it admits the job: longer than the 300 s after which a
    // pod the scheduler refuses fails the job
    cluster.kubelet.gated("queued-1", Instant.now().minusSeconds(600));
    cluster.kubelet.run("queued-0");

    CommJobStatus waiting = cluster.awaitStatus("queued", s -> s.getPhase() == Phase.RUNNING);
    assertThat(condition(waiting, "Failed").getStatus()).isEqualTo("False");
    assertThat(cluster.pods("queued")).hasSize(2);
  }

  @Test
  void aJobCreatedAgainUnderItsNameWaitsForTheOldOnesPodsInsteadOfTakingThemOver() {
    runToSuccess(
        "again",
        "null",
        TestReports.allreduce("again")
            .size(524288, 32, "oneshot", timing("oneshot", 6.0, 5.6, 36.0)));
    cluster.awaitStatus("again", s -> s.getPhase() == Phase.SUCCEEDED);
    // kubectl delete + kubectl apply: the garbage collector has not removed the old pod and
    // ConfigMaps yet (the mock API server has no garbage collector at all)
    client.resources(CommJob.class).withName("again").delete();
    await().atMost(TestCluster.PATIENCE).until(() -> cluster.job("again") == null);
    String oldPodUid = cluster.pods("again").getFirst().getMetadata().getUid();
    CommJob second =
        cluster.apply(
            """
            metadata: {name: again}
            spec:
              worldSize: 1
              device: cpu
              workload:
                kind: benchmark
                benchmark: {tokens: [64]}
            """);

    CommJobStatus waiting =
        cluster.awaitStatus(
            "again", s -> hasCondition(s, "Ready", "False", "PredecessorTerminating"));
    assertThat(waiting.getPhase()).isNull();
    assertThat(condition(waiting, "Ready").getMessage())
        .isEqualTo(
            "waiting for 1 pod and 2 ConfigMaps of a deleted CommJob named again to be deleted");
    assertThat(cluster.pods("again"))
        .extracting(p -> p.getMetadata().getUid())
        .containsExactly(oldPodUid);

    // the garbage collector catches up
    client.pods().withName("again-0").delete();
    client.configMaps().withName("again-spec").delete();
    client.configMaps().withName("again-results").delete();

    Pod fresh = cluster.awaitPods("again", "again-0").getFirst();
    assertOwnedBy(fresh.getMetadata().getOwnerReferences().getFirst(), cluster.job("again"));
    assertThat(cluster.configMap("again-spec").getData().get("job.json")).contains("[64]");
    CommJobStatus running = cluster.awaitStatus("again", s -> s.getPhase() == Phase.PENDING);
    assertThat(running.getConditions())
        .noneMatch(c -> "PredecessorTerminating".equals(c.getReason()));
    assertThat(second.getMetadata().getUid()).isNotEqualTo(oldPodUid);
  }

  @Test
  void aJobWhoseNamesakesPodNeverGoesFailsAfterItsSchedulingTimeoutAndLeavesThePodAlone() {
    runToSuccess(
        "stuck",
        "null",
        TestReports.allreduce("stuck")
            .size(524288, 32, "oneshot", timing("oneshot", 6.0, 5.6, 36.0)));
    cluster.awaitStatus("stuck", s -> s.getPhase() == Phase.SUCCEEDED);
    client.resources(CommJob.class).withName("stuck").delete();
    await().atMost(TestCluster.PATIENCE).until(() -> cluster.job("stuck") == null);
    String oldPodUid = cluster.pods("stuck").getFirst().getMetadata().getUid();
    // the old pod's node does not answer: the garbage collector's deletion never completes
    cluster.apply(
        """
        metadata: {name: stuck}
        spec:
          worldSize: 1
          device: cpu
          schedulingTimeoutSeconds: 2
          workload:
            kind: benchmark
            benchmark: {tokens: [64]}
        """);

    CommJobStatus failed = cluster.awaitStatus("stuck", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(failed, "Failed").getReason()).isEqualTo("Unschedulable");
    assertThat(condition(failed, "Failed").getMessage())
        .isEqualTo(
            "names this job needs are still held by a deleted CommJob named stuck, 2 s after the"
                + " job was created: 1 pod and 2 ConfigMaps (a pod on a node that does not answer"
                + " never finishes terminating)");
    assertThat(cluster.pods("stuck"))
        .extracting(p -> p.getMetadata().getUid())
        .containsExactly(oldPodUid);
  }

  @Test
  void aSpecEditedAfterTheStartIsNotAppliedAndSaysSo() {
    cluster.apply(
        """
        metadata: {name: edited}
        spec:
          worldSize: 2
          device: cpu
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);
    cluster.awaitPods("edited", "edited-0", "edited-1");
    String jobJson = cluster.configMap("edited-spec").getData().get("job.json");

    client
        .resources(CommJob.class)
        .withName("edited")
        .edit(
            job -> {
              job.getSpec().setWorldSize(4);
              return job;
            });

    CommJobStatus status =
        cluster.awaitStatus("edited", s -> hasCondition(s, "SpecChanged", "True", "SpecImmutable"));
    assertThat(condition(status, "SpecChanged").getMessage())
        .isEqualTo(
            "spec changed (generation 2) after the job started with generation 1; the job runs"
                + " the spec it started with: create a new CommJob to run another");
    assertThat(status.getObservedGeneration()).isEqualTo(2L);
    assertThat(cluster.pods("edited")).hasSize(2);
    assertThat(cluster.configMap("edited-spec").getData().get("job.json")).isEqualTo(jobJson);
  }

  @Test
  void ranksOfAMeasuredHeuristicJobMayAlsoReadItsTuningTableAndNothingElse() {
    cluster.apply(
        """
        metadata: {name: tuned}
        spec:
          worldSize: 8
          ranksPerPod: 8
          heuristic: {name: measured, tuningRef: h200-nvlink}
          workload:
            kind: benchmark
            benchmark: {tokens: [32, 4096]}
        """);
    cluster.awaitPods("tuned", "tuned-0");

    Role role = client.rbac().roles().withName("tuned-reporter").get();
    assertThat(role.getRules())
        .extracting("resources", "resourceNames", "verbs")
        .containsExactly(
            tuple(
                List.of("configmaps"), List.of("tuned-results"), List.of("get", "update", "patch")),
            tuple(List.of("configmaps"), List.of("h200-nvlink"), List.of("get")));
  }

  @Test
  void reconcilingAgainChangesNothing() {
    cluster.apply(
        """
        metadata: {name: idle}
        spec:
          worldSize: 2
          device: cpu
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);
    List<Pod> pods = cluster.awaitPods("idle", "idle-0", "idle-1");
    CommJobStatus status = cluster.awaitStatus("idle", s -> s.getStartTime() != null);
    // an annotation change is an event without a new generation; the operator must not act on it
    client
        .resources(CommJob.class)
        .withName("idle")
        .edit(
            job -> {
              job.getMetadata().setAnnotations(Map.of("touched", "yes"));
              return job;
            });
    await()
        .during(java.time.Duration.ofMillis(500))
        .atMost(java.time.Duration.ofSeconds(3))
        .untilAsserted(
            () -> {
              assertThat(cluster.pods("idle"))
                  .extracting(p -> p.getMetadata().getUid())
                  .containsExactlyInAnyOrderElementsOf(
                      pods.stream().map(p -> p.getMetadata().getUid()).toList());
              assertThat(cluster.job("idle").getStatus().getConditions())
                  .isEqualTo(status.getConditions());
            });
  }

  /** A report of one size, 0.5 MiB, whose best algorithm (oneshot) takes {@code micros}. */
  private static TestReports halfMiBAt(String job, double micros) {
    return TestReports.allreduce(job)
        .size(
            524288,
            32,
            "oneshot",
            timing("oneshot", 6.0, micros, 40.0),
            timing("nccl", 14.0, 12.0, 20.0));
  }

  private void runToSuccess(String name, String baseline, TestReports report) {
    cluster.apply(
        """
        metadata: {name: %s}
        spec:
          worldSize: 1
          device: cpu
          baseline: %s
          workload:
            kind: benchmark
            benchmark: {tokens: [32, 128, 512]}
        """
            .formatted(name, baseline));
    cluster.awaitPods(name, name + "-0");
    cluster.kubelet.run(name + "-0");
    cluster.publishReport(name, report.json());
    cluster.kubelet.succeed(name + "-0");
  }

  private static Volume volume(Pod pod, String name) {
    return pod.getSpec().getVolumes().stream()
        .filter(v -> v.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no volume " + name));
  }

  private static void assertOwnedBy(OwnerReference owner, CommJob job) {
    assertThat(owner.getApiVersion()).isEqualTo("gpucomm.dev/v1alpha1");
    assertThat(owner.getKind()).isEqualTo("CommJob");
    assertThat(owner.getName()).isEqualTo(job.getMetadata().getName());
    assertThat(owner.getUid()).isEqualTo(job.getMetadata().getUid());
    assertThat(owner.getController()).isTrue();
    assertThat(owner.getBlockOwnerDeletion()).isTrue();
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-9);
  }
}
