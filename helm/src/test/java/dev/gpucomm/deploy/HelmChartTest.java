package dev.gpucomm.deploy;

import static dev.gpucomm.deploy.Helm.all;
import static dev.gpucomm.deploy.Helm.env;
import static dev.gpucomm.deploy.Helm.find;
import static dev.gpucomm.deploy.Helm.rules;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The chart as helm lints and renders it, with default and with other values. */
class HelmChartTest {
  private static final String OTHER_VALUES =
      """
      image: {repository: registry.example/gpucomm/operator, tag: "1.2.3", pullPolicy: Always}
      replicaCount: 1
      runtime:
        image: {repository: registry.example/gpucomm/runtime, tag: "1.2.3-cuda13", pullPolicy: Always}
        sharedMemorySize: 32Gi
        resourcesPerRank: {cpu: 1500m, memory: 12Gi}
        unschedulableTimeout: 10m
        scaleUpTimeout: 25m
        podTemplate:
          spec:
            tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
            priorityClassName: gpu-batch
        rendezvousPort: 29600
        runAsUser: 2000
      watchNamespaces: [ml-team-a, ml-team-b]
      regression: {baselineRecheckInterval: 2m}
      leaderElection: {enabled: false, leaseName: unused}
      logging: {format: json, level: DEBUG}
      metrics: {enabled: false, port: 8080}
      resources: {requests: {cpu: 200m, memory: 384Mi}, limits: {memory: 1Gi}}
      nodeSelector: {node-role.kubernetes.io/control-plane: ""}
      """;

  private final Helm helm = new Helm();

  /** Lint renders every template, NOTES.txt included, and fails on any warning (--strict). */
  @Test
  void theChartLintsCleanWithDefaultAndOtherValues(@TempDir Path dir) throws Exception {
    Helm.Result lint = helm.run("lint", "--strict", helm.chart.toString());
    assertThat(lint.exitCode()).as(lint.output()).isZero();
    Path values = Files.writeString(dir.resolve("values.yaml"), OTHER_VALUES);
    Helm.Result lintOther =
        helm.run("lint", "--strict", helm.chart.toString(), "--values", values.toString());
    assertThat(lintOther.exitCode()).as(lintOther.output()).isZero();
  }

  @Test
  void aKeyGivenTwiceInOneMappingIsRefusedAsKustomizeRefusesIt(@TempDir Path dir) throws Exception {
    Path twice =
        Files.writeString(
            dir.resolve("twice.yaml"),
            "apiVersion: apps/v1\nkind: Deployment\napiVersion: apps/v1\nkind: Deployment\n");

    assertThatThrownBy(() -> Helm.documents(twice)).hasMessageContaining("Duplicate field");
  }

  @Test
  void byDefaultTheOperatorWatchesAllNamespacesWithTheChartsImages() throws Exception {
    List<JsonNode> objects = helm.template();
    JsonNode deployment = find(objects, "Deployment", "ops-gpucomm-operator");

    assertThat(deployment.at("/spec/replicas").asInt()).isEqualTo(1);
    JsonNode container = deployment.at("/spec/template/spec/containers/0");
    assertThat(container.path("image").asText())
        .isEqualTo("ghcr.io/gpucomm/gpucomm-operator:0.1.0");
    assertThat(env(deployment, "QUARKUS_OPERATOR_SDK_NAMESPACES"))
        .isEqualTo("JOSDK_ALL_NAMESPACES");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_RUNTIME_IMAGE"))
        .isEqualTo("ghcr.io/gpucomm/gpucomm-runtime:0.1.0");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_DEFAULT_SHARED_MEMORY_SIZE")).isEqualTo("8Gi");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_CPU_PER_RANK")).isEqualTo("2");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_MEMORY_PER_RANK")).isEqualTo("4Gi");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_UNSCHEDULABLE_TIMEOUT")).isEqualTo("300s");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_SCALE_UP_TIMEOUT")).isEqualTo("30m");
    assertThat(deployment.at("/spec/template/spec/containers/0/env").findValuesAsText("name"))
        .as("no rank pod template by default")
        .doesNotContain("GPUCOMM_OPERATOR_RANK_POD_TEMPLATE");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_NODE_LOSS_GRACE")).isEqualTo("90s");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_REMOVE_LOST_PODS")).isEqualTo("true");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_BASELINE_RECHECK_INTERVAL")).isEqualTo("30s");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_LEADER_ELECTION_ENABLED")).isEqualTo("true");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_LEADER_ELECTION_LEASE_NAMESPACE"))
        .contains("metadata.namespace");
    assertThat(env(deployment, "GPUCOMM_POD_NAME"))
        .as("the pod's name whole, for its Events' reporting instance")
        .contains("metadata.name");
    assertThat(env(deployment, "QUARKUS_LOG_CONSOLE_JSON_ENABLED")).isEqualTo("false");

    assertThat(container.at("/startupProbe/httpGet/path").asText()).isEqualTo("/q/health/started");
    assertThat(container.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/q/health/live");
    assertThat(container.at("/readinessProbe/httpGet/path").asText()).isEqualTo("/q/health/ready");
    assertThat(container.at("/securityContext/allowPrivilegeEscalation").asBoolean(true)).isFalse();
    assertThat(container.at("/securityContext/readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(container.at("/securityContext/capabilities/drop/0").asText()).isEqualTo("ALL");
    assertThat(deployment.at("/spec/template/spec/securityContext/runAsNonRoot").asBoolean())
        .isTrue();
    assertThat(deployment.at("/spec/template/spec/securityContext/seccompProfile/type").asText())
        .isEqualTo("RuntimeDefault");
    assertThat(container.at("/resources/limits/memory").asText()).isEqualTo("512Mi");

    JsonNode binding = find(objects, "ClusterRoleBinding", "ops-gpucomm-operator-gpucomm-system");
    assertThat(binding.at("/roleRef/name").asText())
        .isEqualTo("ops-gpucomm-operator-gpucomm-system");
    assertThat(binding.at("/subjects/0/name").asText()).isEqualTo("ops-gpucomm-operator");
    assertThat(binding.at("/subjects/0/namespace").asText()).isEqualTo("gpucomm-system");
    assertThat(all(objects, "RoleBinding"))
        .extracting(b -> b.at("/metadata/name").asText())
        .containsExactly("ops-gpucomm-operator-leader-election");

    JsonNode metrics = find(objects, "Service", "ops-gpucomm-operator-metrics");
    assertThat(metrics.at("/metadata/annotations/prometheus.io~1path").asText())
        .isEqualTo("/q/metrics");
    assertThat(metrics.at("/spec/selector")).isEqualTo(deployment.at("/spec/selector/matchLabels"));
  }

  @Test
  void theClusterRoleGrantsOnlyWhatTheOperatorDoes() throws Exception {
    List<JsonNode> objects = helm.template();

    assertThat(rules(find(objects, "ClusterRole", "ops-gpucomm-operator-gpucomm-system")))
        .containsExactlyInAnyOrderEntriesOf(
            Map.ofEntries(
                // delete: spec.ttlSecondsAfterFinished
                Map.entry("gpucomm.dev/commjobs", "get,list,watch,delete"),
                Map.entry("gpucomm.dev/commjobs/status", "get,update,patch"),
                Map.entry("gpucomm.dev/commjobs/finalizers", "update"),
                Map.entry("/pods", "get,list,watch,create,delete"),
                // get, update and patch of configmaps also because the per-job Role grants them;
                // delete: suspending a started job removes its spec ConfigMap with its pods
                Map.entry("/configmaps", "get,list,watch,create,update,patch,delete"),
                Map.entry("/services", "get,list,watch,create,update,patch"),
                Map.entry("/serviceaccounts", "get,list,watch,create,update,patch"),
                Map.entry("rbac.authorization.k8s.io/roles", "get,list,watch,create,update,patch"),
                Map.entry(
                    "rbac.authorization.k8s.io/rolebindings", "get,list,watch,create,update,patch"),
                // create: Events on CommJobs, for kubectl describe; list: a node autoscaler's
                // Events on a pod past its scheduling timeout (runtime.scaleUpTimeout)
                Map.entry("/events", "create,list"),
                // spec.gang: PodGroups of Volcano and of the scheduler-plugins coscheduling plugin;
                // patch: a group is brought to its job's size and minResources before it starts
                Map.entry("scheduling.volcano.sh/podgroups", "get,create,patch"),
                Map.entry("scheduling.x-k8s.io/podgroups", "get,create,patch")));
    JsonNode crdReader =
        find(objects, "ClusterRole", "ops-gpucomm-operator-gpucomm-system-crd-reader");
    assertThat(rules(crdReader))
        .containsExactly(Map.entry("apiextensions.k8s.io/customresourcedefinitions", "get"));
    assertThat(crdReader.at("/rules/0/resourceNames/0").asText()).isEqualTo("commjobs.gpucomm.dev");
    // runtime.removeLostPods: a Node gone or silent lets the operator remove its job's pod
    assertThat(
            rules(find(objects, "ClusterRole", "ops-gpucomm-operator-gpucomm-system-node-reader")))
        .containsExactly(Map.entry("/nodes", "get"));
    assertThat(rules(find(objects, "Role", "ops-gpucomm-operator-leader-election")))
        // patch: Fabric8's leader election renews the Lease with a merge patch.
        .containsExactly(Map.entry("coordination.k8s.io/leases", "get,create,update,patch"));
    assertThat(objects.toString()).doesNotContain("\"*\"");
  }

  @Test
  void withoutTheWaitForAutoscalersTheOperatorMayNotListEvents() throws Exception {
    List<JsonNode> objects = helm.template("--set", "runtime.scaleUpTimeout=0s");

    assertThat(rules(find(objects, "ClusterRole", "ops-gpucomm-operator-gpucomm-system")))
        .containsEntry("/events", "create");
  }

  @Test
  void aNamespaceOrPriorityClassOfDigitsStaysAName() throws Exception {
    // "123" is a valid namespace and priority class name, and YAML would read it as a number
    List<JsonNode> objects =
        helm.template(
            "--set-json", "watchNamespaces=[\"123\"]", "--set-string", "priorityClassName=100");

    JsonNode namespace =
        find(objects, "RoleBinding", "ops-gpucomm-operator").at("/metadata/namespace");
    JsonNode priorityClass =
        find(objects, "Deployment", "ops-gpucomm-operator")
            .at("/spec/template/spec/priorityClassName");

    assertThat(namespace.isTextual()).as(namespace.toString()).isTrue();
    assertThat(namespace.asText()).isEqualTo("123");
    assertThat(priorityClass.isTextual()).as(priorityClass.toString()).isTrue();
    assertThat(priorityClass.asText()).isEqualTo("100");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"a-very-long-release-name-for-testing-the-name-limits", "9lives", "gpucomm.v2"})
  void theMetricsServiceIsNamedAsAServiceMustBeWhateverTheReleaseName(String release)
      throws Exception {
    List<JsonNode> services = all(helm.templateRelease(release), "Service");
    assertThat(services).hasSize(1);
    assertThat(services.getFirst().at("/metadata/name").asText())
        .matches("[a-z]([-a-z0-9]*[a-z0-9])?")
        .hasSizeLessThanOrEqualTo(63)
        .endsWith("-metrics");
  }

  @Test
  void releasesOfOneNameInTwoNamespacesClaimDifferentClusterWideObjects() throws Exception {
    List<String> teamA = clusterScopedNames(helm.template("--namespace=team-a"));
    List<String> teamB = clusterScopedNames(helm.template("--namespace=team-b"));
    // the operator's ClusterRole, its CRD and Node readers, their bindings, the view and edit
    // aggregates
    assertThat(teamA).hasSize(8).doesNotContainAnyElementsOf(teamB);
  }

  private static List<String> clusterScopedNames(List<JsonNode> objects) {
    return objects.stream()
        .filter(o -> o.path("kind").asText().startsWith("ClusterRole"))
        .map(o -> o.path("kind").asText() + "/" + o.at("/metadata/name").asText())
        .toList();
  }

  @Test
  void podLabelsCannotUnselectTheOperatorsPods() throws Exception {
    JsonNode deployment =
        find(
            helm.template(
                "--set",
                "podLabels.team=infra",
                "--set",
                "podLabels.app\\.kubernetes\\.io/instance=x"),
            "Deployment",
            "ops-gpucomm-operator");
    assertThat(deployment.at("/spec/template/metadata/labels/team").asText()).isEqualTo("infra");
    assertThat(deployment.at("/spec/template/metadata/labels/app.kubernetes.io~1instance").asText())
        .isEqualTo(
            deployment.at("/spec/selector/matchLabels/app.kubernetes.io~1instance").asText());
  }

  @Test
  void prometheusScrapesTheContainersPortWhateverTheServicesPort() throws Exception {
    JsonNode metrics =
        find(
            helm.template("--set", "metrics.port=9090"), "Service", "ops-gpucomm-operator-metrics");
    assertThat(metrics.at("/spec/ports/0/port").asInt()).isEqualTo(9090);
    assertThat(metrics.at("/metadata/annotations/prometheus.io~1port").asText()).isEqualTo("8080");
  }

  @Test
  void everyReleaseElectsItsLeaderThroughALeaseOfItsOwn() throws Exception {
    JsonNode ops = find(helm.template(), "Deployment", "ops-gpucomm-operator");
    JsonNode other = find(helm.templateRelease("team-b"), "Deployment", "team-b-gpucomm-operator");
    assertThat(env(ops, "GPUCOMM_OPERATOR_LEADER_ELECTION_LEASE_NAME"))
        .isEqualTo("ops-gpucomm-operator-leader");
    assertThat(env(other, "GPUCOMM_OPERATOR_LEADER_ELECTION_LEASE_NAME"))
        .isEqualTo("team-b-gpucomm-operator-leader");
  }

  @Test
  void otherValuesReachTheOperatorAndLimitItsPermissionsToTheWatchedNamespaces(@TempDir Path dir)
      throws Exception {
    Path values = Files.writeString(dir.resolve("values.yaml"), OTHER_VALUES);
    List<JsonNode> objects = helm.template("--values", values.toString());
    JsonNode deployment = find(objects, "Deployment", "ops-gpucomm-operator");

    // one replica: without leader election, more are refused (ChartOptionsTest)
    assertThat(deployment.at("/spec/replicas").asInt()).isEqualTo(1);
    assertThat(deployment.at("/spec/strategy/type").asText()).isEqualTo("Recreate");
    assertThat(deployment.at("/spec/template/spec/containers/0/image").asText())
        .isEqualTo("registry.example/gpucomm/operator:1.2.3");
    assertThat(env(deployment, "QUARKUS_OPERATOR_SDK_NAMESPACES")).isEqualTo("ml-team-a,ml-team-b");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_RUNTIME_IMAGE"))
        .isEqualTo("registry.example/gpucomm/runtime:1.2.3-cuda13");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_RUNTIME_IMAGE_PULL_POLICY")).isEqualTo("Always");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_DEFAULT_SHARED_MEMORY_SIZE")).isEqualTo("32Gi");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_CPU_PER_RANK")).isEqualTo("1500m");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_MEMORY_PER_RANK")).isEqualTo("12Gi");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_UNSCHEDULABLE_TIMEOUT")).isEqualTo("10m");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_SCALE_UP_TIMEOUT")).isEqualTo("25m");
    // base64: neither the kubelet's $(VAR) nor the operator's ${...} expansion may touch it
    assertThat(
            new ObjectMapper()
                .readTree(
                    Base64.getDecoder()
                        .decode(env(deployment, "GPUCOMM_OPERATOR_RANK_POD_TEMPLATE"))))
        .isEqualTo(
            new ObjectMapper()
                .readTree(
                    """
                    {"spec": {"priorityClassName": "gpu-batch",
                              "tolerations": [{"effect": "NoSchedule", "key": "nvidia.com/gpu",
                                               "operator": "Exists"}]}}
                    """));
    assertThat(env(deployment, "GPUCOMM_OPERATOR_RENDEZVOUS_PORT")).isEqualTo("29600");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_RUN_AS_USER")).isEqualTo("2000");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_BASELINE_RECHECK_INTERVAL")).isEqualTo("2m");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_LEADER_ELECTION_ENABLED")).isEqualTo("false");
    assertThat(env(deployment, "QUARKUS_LOG_CONSOLE_JSON_ENABLED")).isEqualTo("true");
    assertThat(env(deployment, "QUARKUS_LOG_LEVEL")).isEqualTo("DEBUG");
    assertThat(deployment.at("/spec/template/spec/containers/0/resources/limits/memory").asText())
        .isEqualTo("1Gi");
    assertThat(
            deployment
                .at("/spec/template/spec/nodeSelector")
                .has("node-role.kubernetes.io/control-plane"))
        .isTrue();

    assertThat(all(objects, "RoleBinding"))
        .extracting(
            b -> b.at("/metadata/namespace").asText() + "/" + b.at("/roleRef/name").asText())
        .containsExactlyInAnyOrder(
            "ml-team-a/ops-gpucomm-operator-gpucomm-system",
            "ml-team-b/ops-gpucomm-operator-gpucomm-system");
    assertThat(all(objects, "ClusterRoleBinding"))
        .extracting(b -> b.at("/metadata/name").asText())
        .containsExactly(
            "ops-gpucomm-operator-gpucomm-system-crd-reader",
            "ops-gpucomm-operator-gpucomm-system-node-reader");
    assertThat(all(objects, "Role")).as("no lease without leader election").isEmpty();
    assertThat(all(objects, "Service")).as("no metrics Service when disabled").isEmpty();
  }

  @Test
  void valuesOutsideTheSchemaAreRefusedNamingTheKey() throws Exception {
    Helm.Result format =
        helm.run("template", "ops", helm.chart.toString(), "--set", "logging.format=xml");
    assertThat(format.exitCode()).isNotZero();
    assertThat(format.output()).contains("logging.format").contains("\"text\", \"json\"");

    Helm.Result shm =
        helm.run(
            "template", "ops", helm.chart.toString(), "--set", "runtime.sharedMemorySize=lots");
    assertThat(shm.exitCode()).isNotZero();
    assertThat(shm.output()).contains("runtime.sharedMemorySize");

    Helm.Result cpu =
        helm.run(
            "template", "ops", helm.chart.toString(), "--set", "runtime.resourcesPerRank.cpu=two");
    assertThat(cpu.exitCode()).isNotZero();
    assertThat(cpu.output()).contains("runtime.resourcesPerRank.cpu");

    Helm.Result template =
        helm.run(
            "template", "ops", helm.chart.toString(), "--set", "runtime.podTemplate.tolerations=x");
    assertThat(template.exitCode()).isNotZero();
    assertThat(template.output()).contains("runtime.podTemplate").contains("tolerations");

    Helm.Result hostPid =
        helm.run(
            "template",
            "ops",
            helm.chart.toString(),
            "--set",
            "runtime.podTemplate.spec.hostPID=true");
    assertThat(hostPid.exitCode()).isNotZero();
    assertThat(hostPid.output()).contains("runtime.podTemplate.spec").contains("hostPID");

    Helm.Result typo =
        helm.run("template", "ops", helm.chart.toString(), "--set", "leaderElection.enable=false");
    assertThat(typo.exitCode()).isNotZero();
    assertThat(typo.output()).contains("enable");
  }

  @Test
  void theCrdShipsWithTheChart() throws Exception {
    List<JsonNode> objects = helm.template("--include-crds");
    JsonNode crd = find(objects, "CustomResourceDefinition", "commjobs.gpucomm.dev");
    assertThat(crd.at("/spec/group").asText()).isEqualTo("gpucomm.dev");
  }
}
