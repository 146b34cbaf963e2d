package dev.gpucomm.deploy;

import static dev.gpucomm.deploy.Helm.all;
import static dev.gpucomm.deploy.Helm.documents;
import static dev.gpucomm.deploy.Helm.env;
import static dev.gpucomm.deploy.Helm.find;
import static dev.gpucomm.deploy.Helm.grants;
import static dev.gpucomm.deploy.Helm.rules;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Who may do what with CommJobs: the built-in roles of namespace users, and an operator installed
 * by someone who administers only its namespaces.
 */
class ChartRbacTest {
  private static final String AGGREGATE = "rbac.authorization.k8s.io/aggregate-to-";

  private final Helm helm = new Helm();

  @Test
  void namespaceUsersWithTheBuiltInRolesMayReadOrRunCommJobs() throws Exception {
    List<JsonNode> objects = helm.template();

    JsonNode view = find(objects, "ClusterRole", "ops-gpucomm-operator-gpucomm-system-view");
    assertThat(view.at("/metadata/labels").path(AGGREGATE + "view").asText()).isEqualTo("true");
    assertThat(view.at("/metadata/labels").has(AGGREGATE + "edit")).isFalse();
    assertThat(rules(view))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "gpucomm.dev/commjobs", "get,list,watch",
                "gpucomm.dev/commjobs/status", "get,list,watch"));

    JsonNode edit = find(objects, "ClusterRole", "ops-gpucomm-operator-gpucomm-system-edit");
    assertThat(edit.at("/metadata/labels").path(AGGREGATE + "edit").asText()).isEqualTo("true");
    assertThat(edit.at("/metadata/labels").path(AGGREGATE + "admin").asText()).isEqualTo("true");
    assertThat(rules(edit))
        .as("status stays the operator's to write")
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "gpucomm.dev/commjobs",
                "get,list,watch,create,update,patch,delete,deletecollection",
                "gpucomm.dev/commjobs/status",
                "get,list,watch"));
  }

  @Test
  void theAggregatesCanBeLeftOut() throws Exception {
    List<JsonNode> objects = helm.template("--set", "rbac.aggregateToDefaultRoles=false");

    assertThat(all(objects, "ClusterRole"))
        .extracting(r -> r.at("/metadata/name").asText())
        .containsExactlyInAnyOrder(
            "ops-gpucomm-operator-gpucomm-system",
            "ops-gpucomm-operator-gpucomm-system-crd-reader",
            "ops-gpucomm-operator-gpucomm-system-node-reader");
  }

  @Test
  void anOperatorThatLeavesLostPodsToTheClusterReadsNoNodes() throws Exception {
    List<JsonNode> objects = helm.template("--set", "runtime.removeLostPods=false");

    assertThat(all(objects, "ClusterRole"))
        .extracting(r -> r.at("/metadata/name").asText())
        .noneMatch(name -> name.endsWith("-node-reader"));
    assertThat(all(objects, "ClusterRoleBinding"))
        .extracting(r -> r.at("/metadata/name").asText())
        .noneMatch(name -> name.endsWith("-node-reader"));
    assertThat(objects.toString()).doesNotContain("\"nodes\"");
  }

  @Test
  void aNamespacedInstallGrantsTheOperatorItsVerbsInItsOwnNamespaceAndWatchesOnlyThat()
      throws Exception {
    List<JsonNode> objects = helm.template("--namespace=ci", "--set", "rbac.namespaced=true");

    assertThat(clusterScoped(objects)).isEmpty();
    JsonNode role = find(objects, "Role", "ops-gpucomm-operator");
    assertThat(role.at("/metadata/namespace").asText()).isEqualTo("ci");
    JsonNode clusterModeRole =
        find(helm.template(), "ClusterRole", "ops-gpucomm-operator-gpucomm-system");
    assertThat(rules(role)).isEqualTo(rules(clusterModeRole));
    JsonNode binding = find(objects, "RoleBinding", "ops-gpucomm-operator");
    assertThat(binding.at("/metadata/namespace").asText()).isEqualTo("ci");
    assertThat(binding.at("/roleRef/kind").asText()).isEqualTo("Role");
    assertThat(binding.at("/roleRef/name").asText()).isEqualTo("ops-gpucomm-operator");
    assertThat(binding.at("/subjects/0/namespace").asText()).isEqualTo("ci");

    JsonNode deployment = find(objects, "Deployment", "ops-gpucomm-operator");
    assertThat(env(deployment, "QUARKUS_OPERATOR_SDK_NAMESPACES")).isEqualTo("ci");
    assertThat(env(deployment, "GPUCOMM_OPERATOR_REMOVE_LOST_PODS"))
        .as("no Node may be read: lost pods are left to the cluster")
        .isEqualTo("false");
  }

  @Test
  void aNamespacedInstallWatchingOtherNamespacesHasARoleInEach() throws Exception {
    List<JsonNode> objects =
        helm.template(
            "--namespace=ci",
            "--set",
            "rbac.namespaced=true",
            "--set",
            "watchNamespaces={team-a,team-b}");

    assertThat(clusterScoped(objects)).isEmpty();
    assertThat(all(objects, "Role"))
        .extracting(
            r -> r.at("/metadata/namespace").asText() + "/" + r.at("/metadata/name").asText())
        .containsExactlyInAnyOrder(
            "team-a/ops-gpucomm-operator",
            "team-b/ops-gpucomm-operator",
            "ci/ops-gpucomm-operator-leader-election");
    assertThat(all(objects, "RoleBinding"))
        .allSatisfy(b -> assertThat(b.at("/roleRef/kind").asText()).isEqualTo("Role"))
        .allSatisfy(b -> assertThat(b.at("/subjects/0/namespace").asText()).isEqualTo("ci"));
    assertThat(
            env(
                find(objects, "Deployment", "ops-gpucomm-operator"),
                "QUARKUS_OPERATOR_SDK_NAMESPACES"))
        .isEqualTo("team-a,team-b");
  }

  /**
   * Kubernetes refuses to create a Role that grants what its creator does not hold (RBAC's
   * escalation check), so the CI pipeline's identity from the example setup must hold every verb of
   * every Role the namespaced install renders: Kubernetes' built-in {@code admin} role in the
   * namespace, plus the example's own Role for what admin lacks.
   */
  @Test
  void theCiPipelinesIdentityHoldsEveryVerbThatTheNamespacedInstallGrants() throws Exception {
    List<JsonNode> install =
        helm.template("--namespace=gpucomm-ci", "--set", "rbac.namespaced=true");
    List<JsonNode> setup =
        documents(helm.chart.resolve("../../examples/ci/ci-namespace-setup.yaml"));

    Set<String> held = new TreeSet<>(BUILT_IN_ADMIN);
    held.addAll(grants(find(setup, "Role", "gpucomm-ci-deployer")));
    assertThat(all(install, "Role")).isNotEmpty();
    for (JsonNode role : all(install, "Role")) {
      assertThat(grants(role))
          .as("what Role %s grants and the pipeline does not hold", role.at("/metadata/name"))
          .allSatisfy(grant -> assertThat(held).contains(grant));
    }
  }

  /**
   * What Kubernetes' built-in {@code admin} ClusterRole grants (aggregated from {@code edit} and
   * {@code view}) on the resources the chart's Roles name, from Kubernetes' bootstrap policy
   * (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go). Custom resources, Leases and
   * PodGroups are not among them; Events are left out too, since older releases granted only reads.
   */
  private static final Set<String> BUILT_IN_ADMIN = builtInAdmin();

  private static Set<String> builtInAdmin() {
    List<String> readWrite =
        List.of("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection");
    Set<String> grants = new TreeSet<>();
    for (String resource :
        List.of(
            "/pods",
            "/configmaps",
            "/services",
            "/serviceaccounts",
            "/secrets",
            "apps/deployments",
            "policy/poddisruptionbudgets",
            "networking.k8s.io/networkpolicies",
            "rbac.authorization.k8s.io/roles",
            "rbac.authorization.k8s.io/rolebindings")) {
      readWrite.forEach(verb -> grants.add(resource + ":" + verb));
    }
    return grants;
  }

  /** Objects only a cluster administrator may create. */
  private static List<String> clusterScoped(List<JsonNode> objects) {
    return objects.stream()
        .filter(o -> !o.at("/metadata").has("namespace"))
        .map(o -> o.path("kind").asText() + "/" + o.at("/metadata/name").asText())
        .toList();
  }
}
