package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Rank pods a real cluster accepts and places as a multi-node job needs: requests, a memory limit
 * with room for /dev/shm, one pod per node, pull secrets, and the host network, capabilities,
 * claims and NICs of RDMA, against the mock API server.
 */
@QuarkusTest
@WithKubernetesTestServer(setup = CommJobCrdSetup.class)
class RankPodsIT {
  private static final String BENCHMARK =
      "workload: {kind: benchmark, benchmark: {collective: allreduce, tokens: [1024]}}";

  /** A template's node affinity to a pool of H100 nodes, as a platform team labels them. */
  private static final String H100_POOL =
      """
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions: [{key: pool, operator: In, values: [h100]}]
      """;

  @Inject KubernetesClient client;

  private TestCluster cluster;

  @BeforeEach
  void connect() {
    cluster = new TestCluster(client);
  }

  @Test
  void aTwoNodeCudaJobRequestsCpuAndMemoryPerRankAndPutsEachPodOnANodeOfItsOwn() {
    cluster.apply(
        """
        metadata: {name: two-nodes}
        spec:
          worldSize: 16
          ranksPerPod: 8
          sharedMemorySize: 16Gi
          template:
            spec:
              imagePullSecrets: [{name: team-registry}]
        """
            + BENCHMARK.indent(2));

    List<Pod> pods = cluster.awaitPods("two-nodes", "two-nodes-0", "two-nodes-1");

    for (Pod pod : pods) {
      Container container = pod.getSpec().getContainers().get(0);
      assertThat(container.getResources().getRequests())
          .containsEntry("cpu", new Quantity("16"))
          .containsEntry("memory", new Quantity("32Gi"));
      assertThat(container.getResources().getLimits())
          .containsEntry("nvidia.com/gpu", new Quantity("8"))
          .containsEntry("memory", new Quantity("48Gi"));
      assertThat(pod.getSpec().getImagePullSecrets())
          .extracting(LocalObjectReference::getName)
          .containsExactly("team-registry");
      List<PodAffinityTerm> antiAffinity =
          pod.getSpec()
              .getAffinity()
              .getPodAntiAffinity()
              .getRequiredDuringSchedulingIgnoredDuringExecution();
      assertThat(antiAffinity).singleElement();
      assertThat(antiAffinity.get(0).getTopologyKey()).isEqualTo("kubernetes.io/hostname");
      assertThat(antiAffinity.get(0).getLabelSelector().getMatchLabels())
          .containsExactly(Map.entry("gpucomm.dev/job", "two-nodes"));
      assertThat(pod.getSpec().getHostNetwork()).isNotEqualTo(Boolean.TRUE);
      assertThat(pod.getSpec().getDnsPolicy()).isNotEqualTo("ClusterFirstWithHostNet");
    }
  }

  @Test
  void anInfinibandJobRunsOnTheHostNetworkWithIpcLockItsClaimsAndItsNics() {
    cluster.apply(
        """
        metadata: {name: ib}
        spec:
          worldSize: 16
          ranksPerPod: 8
          template:
            metadata:
              annotations: {k8s.v1.cni.cncf.io/networks: ib-sriov}
            spec:
              hostNetwork: true
              resourceClaims: [{name: imex, resourceClaimTemplateName: imex-channel}]
              containers:
              - env: [{name: NCCL_IB_HCA, value: mlx5}]
                resources:
                  limits: {rdma/ib: 8, nvidia.com/hostdev: 8}
                  claims: [{name: imex}]
                securityContext: {capabilities: {add: [IPC_LOCK]}}
        """
            + BENCHMARK.indent(2));

    Pod pod = cluster.awaitPods("ib", "ib-0", "ib-1").get(1);

    assertThat(pod.getMetadata().getAnnotations())
        .containsEntry("k8s.v1.cni.cncf.io/networks", "ib-sriov");
    assertThat(pod.getSpec().getHostNetwork()).isTrue();
    assertThat(pod.getSpec().getDnsPolicy()).isEqualTo("ClusterFirstWithHostNet");
    assertThat(pod.getSpec().getResourceClaims())
        .extracting(PodResourceClaim::getName, PodResourceClaim::getResourceClaimTemplateName)
        .containsExactly(tuple("imex", "imex-channel"));
    Container container = pod.getSpec().getContainers().get(0);
    assertThat(container.getResources().getClaims())
        .extracting(ResourceClaim::getName)
        .containsExactly("imex");
    assertThat(container.getResources().getLimits())
        .containsEntry("rdma/ib", new Quantity("8"))
        .containsEntry("nvidia.com/hostdev", new Quantity("8"))
        .containsEntry("nvidia.com/gpu", new Quantity("8"));
    assertThat(container.getSecurityContext().getCapabilities().getAdd())
        .containsExactly("IPC_LOCK");
    assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
  }

  @Test
  void aTemplateNodeAffinityIsAddedBesideTheOnePodPerNodeDefault() {
    cluster.apply(
        """
        metadata: {name: pooled}
        spec:
          worldSize: 4
          ranksPerPod: 2
          template:
            spec:
              affinity:
        """
            + H100_POOL.indent(8)
            + BENCHMARK.indent(2));

    Pod pod = cluster.awaitPods("pooled", "pooled-0", "pooled-1").get(0);

    assertThat(
            pod.getSpec()
                .getAffinity()
                .getPodAntiAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution())
        .singleElement()
        .extracting(term -> term.getTopologyKey())
        .isEqualTo("kubernetes.io/hostname");
    assertThat(
            pod.getSpec()
                .getAffinity()
                .getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms())
        .singleElement();
  }

  @Test
  void preferredAntiAffinityTermsAloneKeepTheRequiredOnePodPerNodeTerm() {
    cluster.apply(
        """
        metadata: {name: spread-racks}
        spec:
          worldSize: 4
          ranksPerPod: 2
          template:
            spec:
              affinity:
                podAntiAffinity:
                  preferredDuringSchedulingIgnoredDuringExecution:
                  - weight: 50
                    podAffinityTerm:
                      topologyKey: topology.kubernetes.io/rack
                      labelSelector: {matchLabels: {gpucomm.dev/job: spread-racks}}
        """
            + BENCHMARK.indent(2));

    Pod pod = cluster.awaitPods("spread-racks", "spread-racks-0", "spread-racks-1").get(0);

    var anti = pod.getSpec().getAffinity().getPodAntiAffinity();
    assertThat(anti.getRequiredDuringSchedulingIgnoredDuringExecution())
        .singleElement()
        .extracting(term -> term.getTopologyKey())
        .isEqualTo("kubernetes.io/hostname");
    assertThat(anti.getPreferredDuringSchedulingIgnoredDuringExecution())
        .singleElement()
        .extracting(term -> term.getPodAffinityTerm().getTopologyKey())
        .isEqualTo("topology.kubernetes.io/rack");
  }

  @Test
  void aCpuJobTakesItsTemplatesAffinityAsItIs() {
    cluster.apply(
        """
        metadata: {name: cpu-pooled}
        spec:
          worldSize: 2
          device: cpu
          template:
            spec:
              affinity:
                nodeAffinity:
                  requiredDuringSchedulingIgnoredDuringExecution:
                    nodeSelectorTerms:
                    - matchExpressions: [{key: pool, operator: In, values: [cpu]}]
        """
            + BENCHMARK.indent(2));

    Pod pod = cluster.awaitPods("cpu-pooled", "cpu-pooled-0", "cpu-pooled-1").get(0);

    assertThat(pod.getSpec().getAffinity().getPodAntiAffinity()).isNull();
    assertThat(pod.getSpec().getAffinity().getNodeAffinity()).isNotNull();
  }

  @Test
  void anEmptyTemplatePodAntiAffinityDropsTheOnePodPerNodeDefault() {
    cluster.apply(
        """
        metadata: {name: packed}
        spec:
          worldSize: 4
          ranksPerPod: 2
          template:
            spec:
              affinity:
                podAntiAffinity: {}
        """
            + H100_POOL.indent(8)
            + BENCHMARK.indent(2));

    Pod pod = cluster.awaitPods("packed", "packed-0", "packed-1").get(0);

    assertThat(
            pod.getSpec()
                .getAffinity()
                .getPodAntiAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution())
        .isNullOrEmpty();
    assertThat(
            pod.getSpec()
                .getAffinity()
                .getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms())
        .singleElement();
  }

  @Test
  void aCpuJobGetsRequestsButMayPutAllItsPodsOnOneNode() {
    cluster.apply(
        """
        metadata: {name: cpu-pods}
        spec:
          worldSize: 2
          device: cpu
          sharedMemorySize: 1Gi
        """
            + BENCHMARK.indent(2));

    Pod pod = cluster.awaitPods("cpu-pods", "cpu-pods-0", "cpu-pods-1").get(0);

    assertThat(pod.getSpec().getAffinity()).isNull();
    Container container = pod.getSpec().getContainers().get(0);
    assertThat(container.getResources().getRequests())
        .containsEntry("cpu", new Quantity("2"))
        .containsEntry("memory", new Quantity("4Gi"));
    assertThat(container.getResources().getLimits())
        .containsEntry("memory", new Quantity("5Gi"))
        .doesNotContainKey("nvidia.com/gpu");
  }

  @Test
  void aMemoryRequestInTheTemplateCarriesTheLimitWithIt() {
    cluster.apply(
        """
        metadata: {name: big-host}
        spec:
          worldSize: 8
          ranksPerPod: 8
          sharedMemorySize: 8Gi
          template:
            spec:
              containers: [{resources: {requests: {memory: 256Gi, cpu: "64"}}}]
        """
            + BENCHMARK.indent(2));

    Container container =
        cluster.awaitPods("big-host", "big-host-0").get(0).getSpec().getContainers().get(0);

    assertThat(container.getResources().getRequests())
        .containsEntry("cpu", new Quantity("64"))
        .containsEntry("memory", new Quantity("256Gi"));
    assertThat(container.getResources().getLimits()).containsEntry("memory", new Quantity("264Gi"));
  }

  @Test
  void limitsAloneInTheTemplateLowerTheDefaultRequestsToFitUnderThem() {
    cluster.apply(
        """
        metadata: {name: small-quota}
        spec:
          worldSize: 4
          ranksPerPod: 4
          device: cpu
          sharedMemorySize: 1Gi
          template:
            spec:
              containers: [{resources: {limits: {memory: 6Gi, cpu: 1500m}}}]
        """
            + BENCHMARK.indent(2));

    Container container =
        cluster.awaitPods("small-quota", "small-quota-0").get(0).getSpec().getContainers().get(0);

    assertThat(container.getResources().getRequests())
        .as("the defaults, 4 ranks x 2 CPUs and x 4Gi, would exceed the limits")
        .containsEntry("cpu", new Quantity("1500m"))
        .containsEntry("memory", new Quantity("6Gi"));
    assertThat(container.getResources().getLimits())
        .containsEntry("cpu", new Quantity("1500m"))
        .containsEntry("memory", new Quantity("6Gi"));
  }
}
