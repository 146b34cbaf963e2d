package dev.gpucomm.deploy;

import static dev.gpucomm.deploy.Helm.env;
import static dev.gpucomm.deploy.Helm.find;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Values a user may get wrong, or an attacker may craft: refused by helm, naming the value, before
 * anything reaches the API server; never rendered into a manifest that does something else.
 */
class ChartHostileValuesTest {
  private final Helm helm = new Helm();
  @TempDir Path dir;

  /** helm template with {@code values} as a values file, which may hold any string. */
  private Helm.Result templateWith(String values, String... arguments) throws Exception {
    Path file = Files.writeString(dir.resolve("values.yaml"), values);
    List<String> command = new ArrayList<>(List.of("-f", file.toString()));
    command.addAll(List.of(arguments));
    return templating(command.toArray(String[]::new));
  }

  /** helm template of the chart as release ops, with {@code arguments}. */
  private Helm.Result templating(String... arguments) throws Exception {
    List<String> command = new ArrayList<>(List.of("template", "ops", helm.chart.toString()));
    command.addAll(List.of(arguments));
    return helm.run(command.toArray(String[]::new));
  }

  private static void assertRefusedNaming(Helm.Result result, String value) {
    assertThat(result.exitCode()).as(result.output()).isNotZero();
    assertThat(result.output()).contains(value).doesNotContain("kind: Deployment");
  }

  @Test
  void aValueCannotWriteItsOwnFieldsIntoTheOperatorsPod() throws Exception {
    String injected = "\\n          command: [sh, -c, evil]\\n          workingDir: /tmp/x";

    assertRefusedNaming(
        templateWith("image: {repository: \"busybox" + injected + "\"}"), "image.repository");
    assertRefusedNaming(
        templateWith("image: {registry: \"ghcr.io" + injected + "\"}"), "image.registry");
    assertRefusedNaming(
        templateWith("global: {imageRegistry: \"mirror" + injected + "\"}"),
        "global.imageRegistry");
    assertRefusedNaming(
        templateWith(
            "serviceAccount: {create: false, name: \"default\\n      hostPID: true\"}",
            "--set",
            "rbac.create=false"),
        "serviceAccount.name");
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "fullnameOverride | Bad_Name | fullnameOverride",
        "nameOverride | Bad_Name | nameOverride",
        "leaderElection.leaseName | Bad Lease | leaderElection.leaseName",
        "priorityClassName | Bad PC | priorityClassName",
        "imagePullSecrets[0].name | Bad Secret | imagePullSecrets.0.name",
        "image.repository | Gpu Comm/Op | image.repository",
        "global.imageRegistry | https://ghcr.io | global.imageRegistry",
        "resources.requests.cpu | lots | resources.requests.cpu",
        "resources.limits.memory | -1 | resources.limits.memory",
        "resources.requests.foo | 1 | resources.requests: Property name of \"foo\"",
        "commonLabels.team | not a label value! | commonLabels.team",
        "podLabels.team | not a label value! | podLabels.team",
        "env[0].name | A=B | env.0.name",
        "networkPolicy.apiServerCIDRs[0] | 999.999.1.1/99 | networkPolicy.apiServerCIDRs.0",
        "networkPolicy.apiServerCIDRs[0] | 1::2::3/64 | networkPolicy.apiServerCIDRs.0",
        "podDisruptionBudget.minAvailable | 999% | podDisruptionBudget.minAvailable",
        "regression.baselineRecheckInterval | 0s | regression.baselineRecheckInterval",
        "runtime.runAsUser | 99999999999 | runtime.runAsUser",
        "replicaCount | 3000000000 | replicaCount",
      })
  void aValueThatIsNoneOfItsKindIsRefusedNamingIt(String key, String value, String named)
      throws Exception {
    Helm.Result result = templating("--set", key + "=" + value);

    assertRefusedNaming(result, named);
  }

  @Test
  void aFieldThatPullSecretsDoNotHaveIsRefused() throws Exception {
    assertRefusedNaming(
        templating(
            "--set", "imagePullSecrets[0].name=registry", "--set", "imagePullSecrets[0].value=y"),
        "imagePullSecrets.0");
  }

  @Test
  void aBudgetThatKeepsEveryReplicaIsRefusedSinceNoNodeCouldBeDrained() throws Exception {
    for (String minAvailable : new String[] {"3", "100%", "67%"}) {
      Helm.Result result =
          templating(
              "--set",
              "replicaCount=3",
              "--set",
              "podDisruptionBudget.minAvailable=" + minAvailable);

      assertThat(result.exitCode()).as(minAvailable).isNotZero();
      assertThat(result.output())
          .contains("podDisruptionBudget.minAvailable " + minAvailable + " keeps all 3 replicas");
    }
  }

  @Test
  void aBudgetThatLetsOneReplicaGoIsMade() throws Exception {
    JsonNode budget =
        find(
            helm.template(
                "--set", "replicaCount=3", "--set", "podDisruptionBudget.minAvailable=66%"),
            "PodDisruptionBudget",
            "ops-gpucomm-operator");

    assertThat(budget.at("/spec/minAvailable").asText()).isEqualTo("66%");
  }

  @Test
  void namesThatReadAsNumbersOrBooleansStayStringsInEveryObject() throws Exception {
    List<JsonNode> objects =
        helm.template(
            "--set-string", "serviceAccount.name=true", "--set-string", "fullnameOverride=1e3");

    assertThat(find(objects, "ServiceAccount", "true")).isNotNull();
    JsonNode serviceAccountName =
        find(objects, "Deployment", "1e3").at("/spec/template/spec/serviceAccountName");
    assertThat(serviceAccountName.isTextual()).isTrue();
    List<JsonNode> bindings = new ArrayList<>(Helm.all(objects, "RoleBinding"));
    bindings.addAll(Helm.all(objects, "ClusterRoleBinding"));
    assertThat(bindings)
        .hasSizeGreaterThan(1)
        .allSatisfy(
            binding ->
                assertThat(binding.at("/subjects/0/name").isTextual()).as("subject").isTrue());
  }

  @Test
  void aRegistryOfAnIpv6HostIsTakenAndItsImageQuoted() throws Exception {
    JsonNode deployment =
        find(
            helm.template("--set", "global.imageRegistry=[::1]:5000"),
            "Deployment",
            "ops-gpucomm-operator");

    assertThat(deployment.at("/spec/template/spec/containers/0/image").asText())
        .isEqualTo("[::1]:5000/gpucomm/gpucomm-operator:0.1.0");
  }

  @Test
  void aReleaseNamespaceThatIsNoNamespaceNameIsRefused() throws Exception {
    Helm.Result result = templating("-n", "Bad_NS");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.output()).contains("the release namespace \"Bad_NS\" is no namespace name");
  }

  @Test
  void aReleaseNamedLikeANumberOrABooleanStillSelectsItsPodsByAString() throws Exception {
    for (String release : new String[] {"123", "true", "null", "0x1f"}) {
      JsonNode deployment =
          find(helm.templateRelease(release), "Deployment", release + "-gpucomm-operator");

      JsonNode selected = deployment.at("/spec/selector/matchLabels/app.kubernetes.io~1instance");
      assertThat(selected.isTextual()).as(release).isTrue();
      assertThat(selected.asText()).isEqualTo(release);
    }
  }

  @Test
  void aLargeUserIdFromAValuesFileIsWrittenInDigits() throws Exception {
    Path file =
        Files.writeString(dir.resolve("openshift.yaml"), "runtime: {runAsUser: 1000680000}");

    JsonNode deployment =
        find(helm.template("-f", file.toString()), "Deployment", "ops-gpucomm-operator");

    assertThat(env(deployment, "GPUCOMM_OPERATOR_RUN_AS_USER")).isEqualTo("1000680000");
  }
}
