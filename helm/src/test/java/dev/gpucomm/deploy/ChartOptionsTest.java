package dev.gpucomm.deploy;

import static dev.gpucomm.deploy.Helm.all;
import static dev.gpucomm.deploy.Helm.env;
import static dev.gpucomm.deploy.Helm.find;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart among a cluster's conventions: as a dependency of an umbrella chart, scraped by the
 * Prometheus Operator, behind a registry mirror, under a cluster's labels and security policies,
 * through node drains and in namespaces whose network policy denies by default.
 */
class ChartOptionsTest {
  private final Helm helm = new Helm();

  @Test
  void helmsGlobalAndAnUmbrellasEnabledFlagAreAccepted() throws Exception {
    List<JsonNode> objects =
        helm.template(
            "--set", "global.imageRegistry=", "--set", "global.team=ml", "--set", "enabled=true");

    assertThat(all(objects, "Deployment")).hasSize(1);
  }

  @Test
  void anUmbrellaChartWithNoValuesInstallsItAsADependency(@TempDir Path dir) throws Exception {
    Path umbrella = umbrellaChart(dir, "");

    List<JsonNode> objects = helm.templateChart(umbrella, "platform");

    assertThat(
            find(objects, "Deployment", "platform-gpucomm-operator")
                .at("/spec/template/spec/containers/0/image")
                .asText())
        .isEqualTo("ghcr.io/gpucomm/gpucomm-operator:0.1.0");
  }

  @Test
  void anUmbrellaChartsGlobalRegistryAndConditionReachIt(@TempDir Path dir) throws Exception {
    Path umbrella =
        umbrellaChart(
            dir,
            """
            global: {imageRegistry: mirror.example}
            gpucomm-operator: {enabled: true}
            """);

    JsonNode deployment =
        find(helm.templateChart(umbrella, "platform"), "Deployment", "platform-gpucomm-operator");

    assertThat(deployment.at("/spec/template/spec/containers/0/image").asText())
        .isEqualTo("mirror.example/gpucomm/gpucomm-operator:0.1.0");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_RUNTIME_IMAGE"))
        .isEqualTo("mirror.example/gpucomm/gpucomm-runtime:0.1.0");
    assertThat(helm.templateChart(umbrella, "platform", "--set", "gpucomm-operator.enabled=false"))
        .as("the umbrella's condition turns it off")
        .noneMatch(o -> o.at("/metadata/name").asText().startsWith("platform-gpucomm-operator"));
  }

  @Test
  void theRegistryIsSetApartFromTheRepositoryOfEitherImage() throws Exception {
    JsonNode deployment =
        find(
            helm.template(
                "--set", "image.registry=registry.example:5000",
                "--set", "runtime.image.registry=registry.example:5000"),
            "Deployment",
            "ops-gpucomm-operator");

    assertThat(deployment.at("/spec/template/spec/containers/0/image").asText())
        .isEqualTo("registry.example:5000/gpucomm/gpucomm-operator:0.1.0");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_RUNTIME_IMAGE"))
        .isEqualTo("registry.example:5000/gpucomm/gpucomm-runtime:0.1.0");
  }

  @Test
  void aRepositoryThatNamesItsRegistryIsTakenAsItIs() throws Exception {
    JsonNode deployment =
        find(
            helm.template(
                "--set", "image.repository=localhost:5000/gpucomm-operator",
                "--set", "runtime.image.registry=",
                "--set", "runtime.image.repository=gpucomm-runtime",
                "--set", "runtime.image.tag=dev"),
            "Deployment",
            "ops-gpucomm-operator");

    assertThat(deployment.at("/spec/template/spec/containers/0/image").asText())
        .isEqualTo("localhost:5000/gpucomm-operator:0.1.0");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_RUNTIME_IMAGE")).isEqualTo("gpucomm-runtime:dev");
  }

  @Test
  void rankPodsGetTheRuntimePullSecretsThroughTheOperatorsConfiguration() throws Exception {
    JsonNode deployment =
        find(
            helm.template(
                "--set", "runtime.imagePullSecrets[0].name=regcred",
                "--set", "runtime.imagePullSecrets[1].name=mirror-cred"),
            "Deployment",
            "ops-gpucomm-operator");

    assertThat(env(deployment, "GPUCOMM_OPERATOR_RUNTIME_IMAGE_PULL_SECRETS"))
        .isEqualTo("regcred,mirror-cred");
    assertThat(
            find(helm.template(), "Deployment", "ops-gpucomm-operator")
                .at("/spec/template/spec/containers/0/env")
                .findValuesAsText("name"))
        .doesNotContain("GPUCOMM_OPERATOR_RUNTIME_IMAGE_PULL_SECRETS");
  }

  @Test
  void aServiceMonitorScrapesTheMetricsServiceWhenAsked() throws Exception {
    assertThat(all(helm.template(), "ServiceMonitor")).isEmpty();

    List<JsonNode> objects =
        helm.template(
            "--set", "metrics.serviceMonitor.enabled=true",
            "--set", "metrics.serviceMonitor.labels.release=kube-prometheus-stack",
            "--set", "metrics.serviceMonitor.interval=30s");

    JsonNode monitor = find(objects, "ServiceMonitor", "ops-gpucomm-operator");
    JsonNode service = find(objects, "Service", "ops-gpucomm-operator-metrics");
    assertThat(monitor.at("/metadata/labels/release").asText()).isEqualTo("kube-prometheus-stack");
    assertThat(monitor.at("/spec/selector/matchLabels")).isEqualTo(service.at("/spec/selector"));
    assertThat(monitor.at("/spec/namespaceSelector/matchNames/0").asText())
        .isEqualTo("gpucomm-system");
    assertThat(monitor.at("/spec/endpoints/0/port").asText())
        .isEqualTo(service.at("/spec/ports/0/name").asText());
    assertThat(monitor.at("/spec/endpoints/0/path").asText()).isEqualTo("/q/metrics");
    assertThat(monitor.at("/spec/endpoints/0/interval").asText()).isEqualTo("30s");
  }

  @Test
  void aServiceMonitorWithoutTheMetricsServiceIsRefusedNamingBoth() throws Exception {
    Helm.Result result =
        helm.run(
            "template",
            "ops",
            helm.chart.toString(),
            "--set",
            "metrics.serviceMonitor.enabled=true",
            "--set",
            "metrics.enabled=false");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.output()).contains("metrics.serviceMonitor.enabled needs metrics.enabled");
  }

  @Test
  void aPodMonitorScrapesTheOperatorsHttpPort() throws Exception {
    List<JsonNode> objects = helm.template("--set", "metrics.podMonitor.enabled=true");

    JsonNode monitor = find(objects, "PodMonitor", "ops-gpucomm-operator");
    JsonNode deployment = find(objects, "Deployment", "ops-gpucomm-operator");
    assertThat(monitor.at("/spec/selector/matchLabels"))
        .isEqualTo(deployment.at("/spec/selector/matchLabels"));
    assertThat(monitor.at("/spec/podMetricsEndpoints/0/port").asText())
        .isEqualTo(deployment.at("/spec/template/spec/containers/0/ports/0/name").asText());
    assertThat(monitor.at("/spec/podMetricsEndpoints/0/path").asText()).isEqualTo("/q/metrics");
  }

  @Test
  void commonLabelsAreOnEveryObjectAndTheOperatorsPods() throws Exception {
    List<JsonNode> objects =
        helm.template(
            "--set", "commonLabels.team=ml-infra",
            "--set", "commonLabels.app\\.kubernetes\\.io/instance=other",
            "--set", "rbac.aggregateToDefaultRoles=true",
            "--set", "replicaCount=2",
            "--set", "networkPolicy.enabled=true",
            "--set", "metrics.serviceMonitor.enabled=true",
            "--set", "metrics.podMonitor.enabled=true");

    assertThat(objects).hasSizeGreaterThan(10);
    for (JsonNode object : objects) {
      assertThat(object.at("/metadata/labels/team").asText())
          .as("%s %s", object.path("kind").asText(), object.at("/metadata/name").asText())
          .isEqualTo("ml-infra");
      assertThat(object.at("/metadata/labels/app.kubernetes.io~1instance").asText())
          .as("commonLabels do not replace the chart's own")
          .isEqualTo("ops");
    }
    JsonNode deployment = find(objects, "Deployment", "ops-gpucomm-operator");
    assertThat(deployment.at("/spec/template/metadata/labels/team").asText()).isEqualTo("ml-infra");
    assertThat(deployment.at("/spec/template/metadata/labels/app.kubernetes.io~1instance").asText())
        .isEqualTo("ops");
  }

  @Test
  void securityContextsKeepTheirDefaultsAndTakeOverrides() throws Exception {
    JsonNode deployment =
        find(
            helm.template(
                "--set", "podSecurityContext.runAsUser=185",
                "--set", "podSecurityContext.seccompProfile.type=Localhost",
                "--set", "podSecurityContext.seccompProfile.localhostProfile=operator.json",
                "--set", "securityContext.readOnlyRootFilesystem=null"),
            "Deployment",
            "ops-gpucomm-operator");

    JsonNode pod = deployment.at("/spec/template/spec/securityContext");
    assertThat(pod.path("runAsNonRoot").asBoolean()).isTrue();
    assertThat(pod.path("runAsUser").asInt()).isEqualTo(185);
    assertThat(pod.at("/seccompProfile/type").asText()).isEqualTo("Localhost");
    assertThat(pod.at("/seccompProfile/localhostProfile").asText()).isEqualTo("operator.json");
    JsonNode container = deployment.at("/spec/template/spec/containers/0/securityContext");
    assertThat(container.has("readOnlyRootFilesystem")).as("removed by null").isFalse();
    assertThat(container.path("allowPrivilegeEscalation").asBoolean(true)).isFalse();
    assertThat(container.at("/capabilities/drop/0").asText()).isEqualTo("ALL");
  }

  @Test
  void moreEnvironmentComesAfterTheChartsOwn() throws Exception {
    JsonNode container =
        find(
                helm.template(
                    "--set", "env[0].name=JAVA_TOOL_OPTIONS",
                    "--set", "env[0].value=-Dhttps.proxyHost=proxy.example",
                    "--set", "envFrom[0].secretRef.name=operator-extra"),
                "Deployment",
                "ops-gpucomm-operator")
            .at("/spec/template/spec/containers/0");

    List<String> names = container.path("env").findValuesAsText("name");
    assertThat(names.getLast()).isEqualTo("JAVA_TOOL_OPTIONS");
    assertThat(names).contains("QUARKUS_OPERATOR_SDK_NAMESPACES");
    assertThat(container.at("/envFrom/0/secretRef/name").asText()).isEqualTo("operator-extra");
  }

  @Test
  void anEnvironmentEntryReplacesTheChartsOwnOfItsNameRatherThanRepeatingIt() throws Exception {
    // a name listed twice is merged away by a later upgrade's patch, the chart's entry with it
    JsonNode deployment =
        find(
            helm.template(
                "--set", "env[0].name=GPUCOMM_OPERATOR_RUNTIME_IMAGE",
                "--set", "env[0].value=registry.example/runtime:1.2"),
            "Deployment",
            "ops-gpucomm-operator");

    List<String> names =
        deployment.at("/spec/template/spec/containers/0/env").findValuesAsText("name");
    assertThat(names).containsOnlyOnce("GPUCOMM_OPERATOR_RUNTIME_IMAGE");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_RUNTIME_IMAGE"))
        .isEqualTo("registry.example/runtime:1.2");
    assertThat(names).contains("QUARKUS_OPERATOR_SDK_NAMESPACES", "QUARKUS_LOG_LEVEL");
  }

  @Test
  void withoutLeaderElectionOneOperatorRunsAtATime() throws Exception {
    Helm.Result twoReplicas =
        helm.run(
            "template",
            "ops",
            helm.chart.toString(),
            "--set",
            "replicaCount=2",
            "--set",
            "leaderElection.enabled=false");
    JsonNode alone =
        find(
            helm.template("--set", "leaderElection.enabled=false"),
            "Deployment",
            "ops-gpucomm-operator");

    assertThat(twoReplicas.exitCode()).isNotZero();
    assertThat(twoReplicas.output()).contains("replicaCount above 1 needs leaderElection.enabled");
    assertThat(alone.at("/spec/strategy/type").asText()).isEqualTo("Recreate");
    assertThat(
            find(helm.template(), "Deployment", "ops-gpucomm-operator")
                .at("/spec/strategy")
                .isMissingNode())
        .as("with leader election, the default rolling update")
        .isTrue();
  }

  @Test
  void aMetricsServiceAnnotationReplacesTheDefaultOfItsKey() throws Exception {
    JsonNode service =
        find(
            helm.template(
                "--set-string", "metrics.serviceAnnotations.prometheus\\.io/scrape=false"),
            "Service",
            "ops-gpucomm-operator-metrics");

    assertThat(service.at("/metadata/annotations/prometheus.io~1scrape").asText())
        .isEqualTo("false");
    assertThat(service.at("/metadata/annotations/prometheus.io~1path").asText())
        .isEqualTo("/q/metrics");
  }

  @Test
  void aDigestPinsTheImageAndATagInTheRepositoryIsRefused() throws Exception {
    String digest = "sha256:" + "0123456789abcdef".repeat(4);
    JsonNode deployment =
        find(
            helm.template("--set", "image.tag=" + digest, "--set", "runtime.image.tag=" + digest),
            "Deployment",
            "ops-gpucomm-operator");
    Helm.Result tagInRepository =
        helm.run(
            "template", "ops", helm.chart.toString(), "--set", "image.repository=gpucomm/op:1.2");

    assertThat(deployment.at("/spec/template/spec/containers/0/image").asText())
        .isEqualTo("ghcr.io/gpucomm/gpucomm-operator@" + digest);
    assertThat(env(deployment, "GPUCOMM_OPERATOR_RUNTIME_IMAGE")).endsWith("@" + digest);
    assertThat(tagInRepository.exitCode()).isNotZero();
    assertThat(tagInRepository.output()).contains("image.repository");
  }

  @Test
  void aBudgetOfZeroIsKeptNotTurnedIntoOne() throws Exception {
    JsonNode budget =
        find(
            helm.template("--set", "replicaCount=2", "--set", "podDisruptionBudget.minAvailable=0"),
            "PodDisruptionBudget",
            "ops-gpucomm-operator");

    assertThat(budget.at("/spec/minAvailable").asInt(-1)).isZero();
  }

  @Test
  void replicasPreferDifferentNodesUnlessTheirAffinityIsGiven() throws Exception {
    JsonNode one = find(helm.template(), "Deployment", "ops-gpucomm-operator");
    assertThat(one.at("/spec/template/spec").has("affinity")).as("one replica").isFalse();

    JsonNode two =
        find(helm.template("--set", "replicaCount=2"), "Deployment", "ops-gpucomm-operator");
    JsonNode preferred =
        two.at(
            "/spec/template/spec/affinity/podAntiAffinity"
                + "/preferredDuringSchedulingIgnoredDuringExecution/0/podAffinityTerm");
    assertThat(preferred.path("topologyKey").asText()).isEqualTo("kubernetes.io/hostname");
    assertThat(preferred.at("/labelSelector/matchLabels"))
        .isEqualTo(two.at("/spec/selector/matchLabels"));

    JsonNode given =
        find(
            helm.template(
                "--set",
                "replicaCount=2",
                "--set",
                "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
                    + ".nodeSelectorTerms[0].matchExpressions[0].key=pool",
                "--set",
                "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
                    + ".nodeSelectorTerms[0].matchExpressions[0].operator=Exists",
                "--set",
                "topologySpreadConstraints[0].maxSkew=1",
                "--set",
                "topologySpreadConstraints[0].topologyKey=topology.kubernetes.io/zone",
                "--set",
                "topologySpreadConstraints[0].whenUnsatisfiable=ScheduleAnyway"),
            "Deployment",
            "ops-gpucomm-operator");
    JsonNode podSpec = given.at("/spec/template/spec");
    assertThat(podSpec.at("/affinity").has("podAntiAffinity")).as("the given one, whole").isFalse();
    assertThat(podSpec.at("/affinity/nodeAffinity").isObject()).isTrue();
    assertThat(podSpec.at("/topologySpreadConstraints/0/topologyKey").asText())
        .isEqualTo("topology.kubernetes.io/zone");
  }

  @Test
  void aDisruptionBudgetKeepsAReplicaOnlyWhenThereIsMoreThanOne() throws Exception {
    assertThat(all(helm.template(), "PodDisruptionBudget")).as("one replica").isEmpty();

    List<JsonNode> objects = helm.template("--set", "replicaCount=2");
    JsonNode budget = find(objects, "PodDisruptionBudget", "ops-gpucomm-operator");
    assertThat(budget.at("/spec/minAvailable").asInt()).isEqualTo(1);
    assertThat(budget.at("/spec/selector/matchLabels"))
        .isEqualTo(
            find(objects, "Deployment", "ops-gpucomm-operator").at("/spec/selector/matchLabels"));
    assertThat(
            all(
                helm.template(
                    "--set", "replicaCount=2", "--set", "podDisruptionBudget.enabled=false"),
                "PodDisruptionBudget"))
        .isEmpty();
  }

  @Test
  void theRanksNetworkPolicyLetsAJobsRanksTalkReachTheApiServerAndResolveNames() throws Exception {
    assertThat(all(helm.template(), "NetworkPolicy")).as("off by default").isEmpty();

    List<JsonNode> objects =
        helm.template(
            "--set", "networkPolicy.enabled=true",
            "--set", "watchNamespaces={team-a,team-b}",
            "--set", "networkPolicy.apiServerCIDRs={10.96.0.1/32}");

    List<JsonNode> policies =
        all(objects, "NetworkPolicy").stream()
            .filter(p -> p.at("/metadata/name").asText().endsWith("-ranks"))
            .toList();
    assertThat(policies)
        .extracting(p -> p.at("/metadata/namespace").asText())
        .containsExactlyInAnyOrder("team-a", "team-b");
    JsonNode policy = policies.getFirst().path("spec");
    JsonNode ranks = policy.at("/podSelector/matchExpressions/0");
    assertThat(ranks.path("key").asText()).isEqualTo("gpucomm.dev/job");
    assertThat(ranks.path("operator").asText()).isEqualTo("Exists");
    assertThat(policy.path("policyTypes").toString()).contains("Ingress", "Egress");

    JsonNode ingress = policy.at("/ingress/0");
    assertThat(ingress.at("/from/0/podSelector")).isEqualTo(policy.path("podSelector"));
    assertThat(ingress.at("/ports/0/protocol").asText()).isEqualTo("TCP");
    assertThat(ingress.at("/ports/0").has("port"))
        .as("all TCP ports: NCCL's are ephemeral")
        .isFalse();

    List<String> egress = new ArrayList<>();
    for (JsonNode rule : policy.path("egress")) {
      String to =
          rule.at("/to/0/podSelector").isMissingNode()
              ? rule.at("/to/0/ipBlock/cidr").asText("anywhere")
              : "ranks";
      for (JsonNode port : rule.path("ports")) {
        egress.add(to + " " + port.path("protocol").asText() + "/" + port.path("port").asText("*"));
      }
    }
    assertThat(egress)
        .containsExactlyInAnyOrder(
            "ranks TCP/*",
            "10.96.0.1/32 TCP/443",
            "10.96.0.1/32 TCP/6443",
            "anywhere UDP/53",
            "anywhere TCP/53");
  }

  @Test
  void withoutWatchedNamespacesTheNetworkPolicyGoesToTheReleasesNamespace() throws Exception {
    assertThat(all(helm.template("--set", "networkPolicy.enabled=true"), "NetworkPolicy"))
        .extracting(
            p -> p.at("/metadata/name").asText() + " in " + p.at("/metadata/namespace").asText())
        .containsExactlyInAnyOrder(
            "ops-gpucomm-operator-ranks in gpucomm-system",
            "ops-gpucomm-operator-operator in gpucomm-system");
  }

  @Test
  void theOperatorsOwnPodReachesTheApiServerAndServesItsPortUnderADefaultDeny() throws Exception {
    List<JsonNode> objects =
        helm.template(
            "--set", "networkPolicy.enabled=true",
            "--set", "networkPolicy.apiServerCIDRs={10.96.0.1/32}");
    JsonNode policy = find(objects, "NetworkPolicy", "ops-gpucomm-operator-operator").path("spec");

    assertThat(policy.at("/podSelector/matchLabels"))
        .isEqualTo(
            find(objects, "Deployment", "ops-gpucomm-operator").at("/spec/selector/matchLabels"));
    assertThat(policy.at("/ingress/0/ports/0/port").asInt()).isEqualTo(8080);
    assertThat(policy.at("/egress/0/to/0/ipBlock/cidr").asText()).isEqualTo("10.96.0.1/32");
    assertThat(policy.at("/egress/0/ports").findValuesAsText("port"))
        .containsExactly("443", "6443");
    assertThat(policy.at("/egress/1/ports").findValuesAsText("port")).containsExactly("53", "53");
    assertThat(policy.at("/ingress/0").has("from"))
        .as("metrics open to anyone by default")
        .isFalse();
  }

  @Test
  void theOperatorsMetricsCanBeKeptToTheMonitoringNamespace() throws Exception {
    List<JsonNode> objects =
        helm.template(
            "--set",
            "networkPolicy.enabled=true",
            "--set",
            "networkPolicy.metricsFrom[0].namespaceSelector.matchLabels"
                + ".kubernetes\\.io/metadata\\.name=monitoring");
    JsonNode ingress =
        find(objects, "NetworkPolicy", "ops-gpucomm-operator-operator").at("/spec/ingress/0");

    assertThat(ingress.at("/ports/0/port").asInt()).isEqualTo(8080);
    assertThat(
            ingress
                .at("/from/0/namespaceSelector/matchLabels")
                .path("kubernetes.io/metadata.name")
                .asText())
        .isEqualTo("monitoring");
  }

  /** An umbrella chart with {@code values} that has ours in its charts/ directory. */
  private Path umbrellaChart(Path dir, String values) throws IOException {
    Path umbrella = Files.createDirectories(dir.resolve("platform"));
    Files.writeString(
        umbrella.resolve("Chart.yaml"),
        """
        apiVersion: v2
        name: platform
        version: 1.0.0
        dependencies:
          - name: gpucomm-operator
            version: 0.1.0
            condition: gpucomm-operator.enabled
        """);
    Files.writeString(umbrella.resolve("values.yaml"), values);
    copy(helm.chart, umbrella.resolve("charts").resolve("gpucomm-operator"));
    return umbrella;
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path file : files.toList()) {
        Path target = to.resolve(from.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(target);
        } else {
          Files.copy(file, target);
        }
      }
    }
  }
}
