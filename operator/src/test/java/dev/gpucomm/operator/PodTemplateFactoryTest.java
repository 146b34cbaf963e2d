package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the operator's configuration puts in the rank pods it builds. */
class PodTemplateFactoryTest {
  private static final JobLayout LAYOUT = new JobLayout(2, 1, DeviceKind.CPU, 900, "1Gi");

  @Test
  void rankPodsPullTheRuntimeImageWithTheConfiguredSecrets() {
    PodTemplateFactory factory = factory(Optional.of(List.of("regcred", "mirror-cred")));

    Pod pod = factory.build(job(), LAYOUT, 1);

    assertThat(pod.getSpec().getImagePullSecrets())
        .extracting(LocalObjectReference::getName)
        .containsExactly("regcred", "mirror-cred");
  }

  @Test
  void withoutConfiguredSecretsRankPodsNameNone() {
    Pod pod = factory(Optional.empty()).build(job(), LAYOUT, 0);

    assertThat(pod.getSpec().getImagePullSecrets()).isEmpty();
  }

  @Test
  void aJobsTemplateNamingItsOwnSecretsReplacesTheConfiguredOnes() {
    CommJob job = job();
    job.getSpec()
        .setTemplate(
            new PodTemplateSpecBuilder()
                .withNewSpec()
                .addNewImagePullSecret("team-cred")
                .endSpec()
                .build());

    Pod pod = factory(Optional.of(List.of("regcred"))).build(job, LAYOUT, 0);

    assertThat(pod.getSpec().getImagePullSecrets())
        .extracting(LocalObjectReference::getName)
        .containsExactly("team-cred");
  }

  @Test
  void rankPodsEndThemselvesWellAfterTheOperatorWouldHaveTimedTheJobOut() {
    CommJob job = job();
    job.getSpec().setSchedulingTimeoutSeconds(120);

    // timeoutSeconds 900 to start (with the scheduling timeout, 120, and the 900 s an autoscaler's
    // node may take) and 900 to run, and 600 more
    assertThat(factory(Optional.empty()).build(job, LAYOUT, 0).getSpec().getActiveDeadlineSeconds())
        .isEqualTo(3420L);
    // the operator's default scheduling timeout where the job names none
    assertThat(
            factory(Optional.empty()).build(job(), LAYOUT, 0).getSpec().getActiveDeadlineSeconds())
        .isEqualTo(2 * 900L + 300L + 900L + 600L);
  }

  /** A job the operator's validation passes. */
  private static CommJob cpuBenchmark() {
    return TestJobs.cpuBenchmark(job());
  }

  private static CommJob job() {
    CommJob job = new CommJob();
    job.setMetadata(
        new ObjectMetaBuilder()
            .withName("sweep")
            .withNamespace("ml")
            .withUid("uid-1")
            .withGeneration(1L)
            .build());
    CommJobSpec spec = new CommJobSpec();
    spec.setWorldSize(2);
    spec.setRanksPerPod(1);
    job.setSpec(spec);
    return job;
  }

  @Test
  void autoscalersAreToldNotToTakeARunningRanksNodeUnlessTheJobAllowsIt() {
    Pod kept = factory(Optional.empty()).build(job(), LAYOUT, 0);
    CommJob disruptible = job();
    disruptible
        .getSpec()
        .setTemplate(
            new PodTemplateSpecBuilder()
                .withNewMetadata()
                .addToAnnotations("karpenter.sh/do-not-disrupt", "false")
                .endMetadata()
                .build());

    Pod allowed = factory(Optional.empty()).build(disruptible, LAYOUT, 0);

    assertThat(kept.getMetadata().getAnnotations())
        .containsEntry("karpenter.sh/do-not-disrupt", "true")
        .containsEntry("cluster-autoscaler.kubernetes.io/safe-to-evict", "false");
    assertThat(allowed.getMetadata().getAnnotations())
        .containsEntry("karpenter.sh/do-not-disrupt", "false");
  }

  /** What the chart's runtime.podTemplate says on a cluster whose GPU nodes are tainted. */
  private static final String CLUSTER_TEMPLATE =
      """
      {"metadata": {"labels": {"cost-center": "gpu-benchmarks"}},
       "spec": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists",
                                 "effect": "NoSchedule"}],
                "nodeSelector": {"node-pool": "gpu"},
                "priorityClassName": "gpu-batch",
                "containers": [{"resources": {"limits": {"rdma/ib": "1"}}}]}}
      """;

  @Test
  void theClustersRankPodTemplateTakesEveryJobToItsTaintedGpuNodes() {
    OperatorConfig config = clusterTemplate(CLUSTER_TEMPLATE);

    Pod pod = new PodTemplateFactory(config, new PodTemplateOverlay()).build(job(), LAYOUT, 0);

    assertThat(pod.getMetadata().getLabels()).containsEntry("cost-center", "gpu-benchmarks");
    assertThat(pod.getSpec().getTolerations())
        .extracting(Toleration::getKey, Toleration::getEffect)
        .containsExactly(tuple("nvidia.com/gpu", "NoSchedule"));
    assertThat(pod.getSpec().getNodeSelector()).containsExactly(Map.entry("node-pool", "gpu"));
    assertThat(pod.getSpec().getPriorityClassName()).isEqualTo("gpu-batch");
    assertThat(pod.getSpec().getContainers().get(0).getResources().getLimits())
        .containsEntry("rdma/ib", new Quantity("1"));
  }

  @Test
  void aQueuesPlacementInTheJobsTemplateKeepsTheClustersTolerationOfTheGpuTaint() {
    OperatorConfig config = clusterTemplate(CLUSTER_TEMPLATE);
    // what Kueue writes into a suspended job's template when it admits it on a flavor
    CommJob admitted = cpuBenchmark();
    admitted
        .getSpec()
        .setTemplate(
            new PodTemplateSpecBuilder()
                .withNewMetadata()
                .addToLabels("team", "inference")
                .endMetadata()
                .withNewSpec()
                .addToNodeSelector("cloud.google.com/gke-accelerator", "nvidia-h200-141gb")
                .addNewToleration()
                .withKey("spot")
                .withOperator("Exists")
                .withEffect("NoSchedule")
                .endToleration()
                .withPriorityClassName("gpu-urgent")
                .endSpec()
                .build());

    Pod pod = new PodTemplateFactory(config, new PodTemplateOverlay()).build(admitted, LAYOUT, 0);

    assertThat(pod.getSpec().getTolerations())
        .extracting(Toleration::getKey)
        .containsExactly("nvidia.com/gpu", "spot");
    assertThat(pod.getSpec().getNodeSelector())
        .containsOnly(
            Map.entry("node-pool", "gpu"),
            Map.entry("cloud.google.com/gke-accelerator", "nvidia-h200-141gb"));
    assertThat(pod.getSpec().getPriorityClassName()).as("the job's wins").isEqualTo("gpu-urgent");
    assertThat(pod.getMetadata().getLabels())
        .containsEntry("cost-center", "gpu-benchmarks")
        .containsEntry("team", "inference");
    assertThat(new SpecValidator(new TemplateOverlayValidator(), config).problems(admitted))
        .isEmpty();
  }

  @Test
  void theClustersMemoryRequestSizesTheLimitAndIsCheckedAgainstEachJob() {
    OperatorConfig config =
        clusterTemplate(
            """
                    {"spec": {"containers": [{"resources": {"requests": {"memory": "64Gi"}}}]}}
                    """);
    CommJob job = cpuBenchmark();

    Pod pod = new PodTemplateFactory(config, new PodTemplateOverlay()).build(job, LAYOUT, 0);

    // the limit follows the request the cluster names, with the job's 1Gi /dev/shm on top
    assertThat(pod.getSpec().getContainers().get(0).getResources().getLimits())
        .containsEntry("memory", new Quantity("65Gi"));
    // a cluster's memory limit below a job's /dev/shm, whose pages count against it
    OperatorConfig capped =
        clusterTemplate(
            """
                    {"spec": {"containers": [{"resources": {"limits": {"memory": "8Gi"}}}]}}
                    """);
    job.getSpec().setSharedMemorySize("16Gi");
    assertThat(new SpecValidator(new TemplateOverlayValidator(), capped).problems(job))
        .singleElement()
        .asString()
        .startsWith("spec.sharedMemorySize exceeds spec.template.spec.containers[0]")
        .endsWith("(with runtime.podTemplate laid under it)");
  }

  @Test
  void aJobsOwnResourceSettingsReplaceTheClustersForThatResource() {
    OperatorConfig config =
        clusterTemplate(
            """
                    {"spec": {"containers": [{"resources": {"limits": {"memory": "64Gi",
                                                                       "rdma/ib": "1"}}}]}}
                    """);
    CommJob job = cpuBenchmark();
    job.getSpec()
        .setTemplate(
            new PodTemplateSpecBuilder()
                .withNewSpec()
                .addNewContainer()
                .withNewResources()
                .addToRequests("memory", new Quantity("100Gi"))
                .endResources()
                .endContainer()
                .endSpec()
                .build());

    Pod pod = new PodTemplateFactory(config, new PodTemplateOverlay()).build(job, LAYOUT, 0);

    // not a 100Gi request under the cluster's 64Gi limit, which the API server would refuse
    assertThat(pod.getSpec().getContainers().get(0).getResources().getLimits())
        .containsEntry("memory", new Quantity("101Gi"))
        .containsEntry("rdma/ib", new Quantity("1"));
    assertThat(new SpecValidator(new TemplateOverlayValidator(), config).problems(job)).isEmpty();
  }

  @Test
  void envVarsKeepTheJobsOrderAndPullSecretsAndAffinitiesOfOtherKindsAddUp() {
    OperatorConfig config =
        clusterTemplate(
            """
                    {"spec": {"imagePullSecrets": [{"name": "mirror"}],
                              "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                  {"nodeSelectorTerms": [{"matchExpressions": [
                                      {"key": "pool", "operator": "In", "values": ["gpu"]}]}]}}},
                              "containers": [{"env": [{"name": "A", "value": "cluster"},
                                                      {"name": "NCCL_DEBUG", "value": "WARN"}]}]}}
                    """);
    CommJob job = cpuBenchmark();
    job.getSpec()
        .setTemplate(
            new PodTemplateSpecBuilder()
                .withNewSpec()
                .addNewImagePullSecret("team")
                .withNewAffinity()
                .withNewPodAntiAffinity()
                .addNewPreferredDuringSchedulingIgnoredDuringExecution()
                .withWeight(1)
                .withNewPodAffinityTerm()
                .withTopologyKey("kubernetes.io/hostname")
                .endPodAffinityTerm()
                .endPreferredDuringSchedulingIgnoredDuringExecution()
                .endPodAntiAffinity()
                .endAffinity()
                .addNewContainer()
                .addNewEnv()
                .withName("X")
                .withValue("1")
                .endEnv()
                .addNewEnv()
                .withName("A")
                .withValue("$(X)")
                .endEnv()
                .endContainer()
                .endSpec()
                .build());

    Pod pod = new PodTemplateFactory(config, new PodTemplateOverlay()).build(job, LAYOUT, 0);

    List<String> env =
        pod.getSpec().getContainers().get(0).getEnv().stream()
            .map(var -> var.getName() + "=" + var.getValue())
            .toList();
    assertThat(env).containsSubsequence("NCCL_DEBUG=WARN", "X=1", "A=$(X)");
    assertThat(env).doesNotContain("A=cluster");
    assertThat(pod.getSpec().getImagePullSecrets())
        .extracting(LocalObjectReference::getName)
        .containsExactly("mirror", "team");
    assertThat(pod.getSpec().getAffinity().getNodeAffinity()).as("the cluster's").isNotNull();
    assertThat(pod.getSpec().getAffinity().getPodAntiAffinity()).as("the job's").isNotNull();
  }

  @Test
  void aTemplateThatRequestsMoreThanItsLimitIsRefused() {
    CommJob job = cpuBenchmark();
    job.getSpec()
        .setTemplate(
            new PodTemplateSpecBuilder()
                .withNewSpec()
                .addNewContainer()
                .withNewResources()
                .addToRequests("cpu", new Quantity("8"))
                .addToLimits("cpu", new Quantity("4"))
                .endResources()
                .endContainer()
                .endSpec()
                .build());

    assertThat(
            new SpecValidator(
                    new TemplateOverlayValidator(), config(Optional.empty(), Optional.empty()))
                .problems(job))
        .containsExactly(
            "spec.template.spec.containers[0].resources.requests[\"cpu\"] (8) is more than"
                + " spec.template.spec.containers[0].resources.limits[\"cpu\"] (4)");
  }

  @Test
  void theOperatorDoesNotStartWithAClusterTemplateThatNamesAGpuCount() {
    OperatorConfig config =
        clusterTemplate(
            """
                    {"spec": {"containers": [{"resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}
                    """);

    assertThatThrownBy(
            () -> new RankPodDefaultsCheck().onStart(null, config, new TemplateOverlayValidator()))
        .hasMessage(
            "the operator's rank pod template cannot be used: runtime.podTemplate.spec"
                + ".containers[0].resources names nvidia.com/gpu, which each job's ranksPerPod"
                + " sets");
  }

  @Test
  void aRankPodTemplateThatIsNoPodTemplateIsRefusedNamingTheSetting() {
    assertThatThrownBy(
            () -> RankPodDefaults.of(Optional.of(base64("{\"spec\": {\"tolerations\": \"all\"}}"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "runtime.podTemplate (gpucomm.operator.rank-pod-template) is not a base64-encoded pod"
                + " template:");
    assertThatThrownBy(() -> RankPodDefaults.of(Optional.of("{\"spec\": {}}")))
        .as("JSON that was not encoded")
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("runtime.podTemplate");
  }

  /** The operator's defaults, with {@code json} as the cluster's rank pod template. */
  private static OperatorConfig clusterTemplate(String json) {
    return config(Optional.empty(), Optional.of(base64(json)));
  }

  private static String base64(String json) {
    return Base64.getEncoder().encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }

  /** A factory whose configuration is the operator's defaults and the given pull secrets. */
  private static PodTemplateFactory factory(Optional<List<String>> pullSecrets) {
    return new PodTemplateFactory(config(pullSecrets, Optional.empty()), new PodTemplateOverlay());
  }

  /** The operator's defaults, with the given pull secrets and rank pod template. */
  private static OperatorConfig config(
      Optional<List<String>> pullSecrets, Optional<String> rankPodTemplate) {
    return (OperatorConfig)
        Proxy.newProxyInstance(
            PodTemplateFactoryTest.class.getClassLoader(),
            new Class<?>[] {OperatorConfig.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "runtimeImagePullSecrets" -> pullSecrets;
                  case "runtimeImage" -> "ghcr.io/gpucomm/gpucomm-runtime:0.1.0";
                  case "runtimeImagePullPolicy" -> "IfNotPresent";
                  case "rendezvousPort" -> 29500;
                  case "runAsUser" -> 1000L;
                  case "cpuPerRank" -> "2";
                  case "memoryPerRank" -> "4Gi";
                  case "unschedulableTimeout" -> java.time.Duration.ofSeconds(300);
                  case "scaleUpTimeout" -> java.time.Duration.ofMinutes(15);
                  case "rankPodTemplate" -> rankPodTemplate;
                  case "defaultSharedMemorySize" -> "8Gi";
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }
}
