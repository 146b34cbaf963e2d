package dev.gpucomm.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.gpucomm.api.v1alpha1.crd.StructuralSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What {@code kubectl apply} says of a CommJob's pod template overlay on a real cluster: the
 * committed CRD's structural schema, applied to sample objects as the API server's strict field
 * validation would.
 */
class TemplateSchemaTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static JsonNode crd;
  private static StructuralSchema commJobSchema;

  @BeforeAll
  static void readCommittedCrd() throws IOException {
    crd =
        YAML.readTree(
            Path.of(System.getProperty("committedCrdDir"), "commjobs.gpucomm.dev-v1.yml").toFile());
    commJobSchema = new StructuralSchema(specSchema());
  }

  @Test
  void theTemplateIsTypedSoThatKubectlExplainShowsItsFields() {
    JsonNode template = templateSchema();
    assertThat(template.has("x-kubernetes-preserve-unknown-fields")).isFalse();
    assertThat(names(template.at("/properties/spec/properties")))
        .contains(
            "nodeSelector",
            "tolerations",
            "affinity",
            "imagePullSecrets",
            "hostNetwork",
            "resourceClaims",
            "containers");
    assertThat(names(template.at("/properties/spec/properties/containers/items/properties")))
        .containsExactlyInAnyOrder(
            "name",
            "image",
            "imagePullPolicy",
            "resources",
            "env",
            "envFrom",
            "volumeMounts",
            "securityContext");
  }

  @Test
  void aMisspeltFieldInTheTemplateIsRejectedAtAdmission() throws IOException {
    assertThat(problems("template: {spec: {nodeSelecter: {pool: h100}}}"))
        .containsExactly("spec.template.spec.nodeSelecter: unknown field");
  }

  @Test
  void aPodFieldTheOverlayDoesNotTakeIsRejectedAtAdmission() throws IOException {
    assertThat(problems("template: {spec: {hostIPC: true}}"))
        .containsExactly("spec.template.spec.hostIPC: unknown field");
    assertThat(problems("template: {spec: {containers: [{securityContext: {privileged: true}}]}}"))
        .containsExactly(
            "spec.template.spec.containers[0].securityContext.privileged: unknown field");
  }

  @Test
  void onlyTheCapabilitiesRdmaNeedsMayBeAdded() throws IOException {
    assertThat(
            problems(
                "template: {spec: {containers: [{securityContext: {capabilities: {add:"
                    + " [IPC_LOCK, SYS_ADMIN]}}}]}}"))
        .containsExactly(
            "spec.template.spec.containers[0].securityContext.capabilities.add[1]: unsupported"
                + " value \"SYS_ADMIN\" (supported: IPC_LOCK, SYS_RESOURCE)");
  }

  @Test
  void theOverlayTakesOneContainerNamedGpucomm() throws IOException {
    assertThat(problems("template: {spec: {containers: [{image: a}, {image: b}]}}"))
        .containsExactly("spec.template.spec.containers: must have at most 1 items");
    assertThat(problems("template: {spec: {containers: [{name: sidecar}]}}"))
        .containsExactly("spec.template.spec.containers[0].name: must match ^gpucomm$");
  }

  @Test
  void aQuantityThatIsNoneIsRejectedAtAdmission() throws IOException {
    assertThat(
            problems(
                "template: {spec: {containers: [{resources: {limits: {memory: 1e5x, cpu: 1500m},"
                    + " requests: {memory: '', cpu: 2}}}], volumes: [{name: scratch, emptyDir:"
                    + " {sizeLimit: lots}}]}}"))
        .containsExactly(
            "spec.template.spec.containers[0].resources.limits.memory: must match "
                + ResourceQuantity.PATTERN,
            "spec.template.spec.containers[0].resources.requests.memory: must match "
                + ResourceQuantity.PATTERN,
            "spec.template.spec.volumes[0].emptyDir.sizeLimit: must match "
                + ResourceQuantity.PATTERN);
  }

  @Test
  void envVarsVolumesAndMountsNeedTheirNamesAtAdmission() throws IOException {
    assertThat(
            problems(
                "template: {spec: {volumes: [{emptyDir: {}}], containers: [{env: [{value: x}],"
                    + " volumeMounts: [{name: data}]}]}}"))
        .containsExactlyInAnyOrder(
            "spec.template.spec.volumes[0].name: required",
            "spec.template.spec.containers[0].env[0].name: required",
            "spec.template.spec.containers[0].volumeMounts[0].mountPath: required");
  }

  @Test
  void anRdmaOverlayWithHostNetworkClaimsAndExtendedResourcesIsAccepted() throws IOException {
    assertThat(
            problems(
                """
                template:
                  metadata:
                    annotations: {k8s.v1.cni.cncf.io/networks: rdma-net}
                  spec:
                    hostNetwork: true
                    nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
                    tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
                    imagePullSecrets: [{name: regcred}]
                    priorityClassName: training
                    resourceClaims: [{name: imex, resourceClaimTemplateName: imex-channel}]
                    containers:
                      - resources:
                          requests: {cpu: 32, memory: 256Gi}
                          limits: {rdma/ib: 8, vpc.amazonaws.com/efa: 4, memory: 512Gi}
                          claims: [{name: imex}]
                        env: [{name: NCCL_IB_HCA, value: mlx5}]
                        securityContext: {capabilities: {add: [IPC_LOCK]}}
                """))
        .isEmpty();
  }

  @Test
  void everyCommJobUnderExamplesPassesTheSchema() throws IOException {
    Path examples = Path.of(System.getProperty("committedCrdDir")).resolveSibling("examples");
    List<Path> files;
    try (Stream<Path> walk = Files.walk(examples)) {
      files = walk.filter(file -> file.toString().endsWith(".yaml")).sorted().toList();
    }
    List<String> problems = new ArrayList<>();
    int commJobs = 0;
    for (Path file : files) {
      try (MappingIterator<JsonNode> documents =
          YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
        while (documents.hasNext()) {
          JsonNode document = documents.next();
          if ("CommJob".equals(document.path("kind").asText())) {
            commJobs++;
            commJobSchema
                .problems(document.path("spec"), "spec")
                .forEach(problem -> problems.add(file.getFileName() + ": " + problem));
          }
        }
      }
    }
    assertThat(commJobs).isGreaterThanOrEqualTo(files.size() / 2);
    assertThat(problems).isEmpty();
  }

  private static List<String> problems(String specYaml) throws IOException {
    JsonNode spec =
        YAML.readTree("worldSize: 16\nranksPerPod: 8\nworkload: {kind: benchmark}\n" + specYaml);
    return commJobSchema.problems(spec, "spec");
  }

  /** The API server checks apiVersion, kind and metadata itself; the CRD's schema is the spec's. */
  private static JsonNode specSchema() {
    return crd.at("/spec/versions/0/schema/openAPIV3Schema/properties/spec");
  }

  private static JsonNode templateSchema() {
    return crd.at("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/template");
  }

  private static List<String> names(JsonNode properties) {
    List<String> names = new ArrayList<>();
    properties.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
