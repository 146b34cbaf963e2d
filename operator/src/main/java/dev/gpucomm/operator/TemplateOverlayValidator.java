package dev.gpucomm.operator;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.RankCapability;
import dev.gpucomm.api.v1alpha1.ResourceQuantity;
import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceClaim;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import jakarta.enterprise.context.ApplicationScoped;
import java.math.BigDecimal;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks a CommJob's pod template overlay: only the fields {@link PodTemplateOverlay} merges, and
 * none that would undo what the operator sets up (the contract env, /dev/shm, the GPU count) or
 * widen the container beyond what RDMA needs (added capabilities, resource names). The CRD's schema
 * says the same at admission; this check covers API servers that did not apply it.
 */
@ApplicationScoped
public class TemplateOverlayValidator {
  static final String FIELD = "spec.template";

  /** The fields a template may set, as a tree: a leaf (empty set) accepts any value below it. */
  private static final Map<String, Set<String>> ALLOWED =
      Map.of(
          "",
          Set.of("metadata", "spec"),
          "metadata",
          Set.of("labels", "annotations"),
          "spec",
          Set.of(
              "containers",
              "nodeSelector",
              "tolerations",
              "affinity",
              "schedulerName",
              "priorityClassName",
              "runtimeClassName",
              "imagePullSecrets",
              "topologySpreadConstraints",
              "volumes",
              "hostNetwork",
              "resourceClaims"),
          "container",
          Set.of(
              "name",
              "image",
              "imagePullPolicy",
              "resources",
              "env",
              "envFrom",
              "volumeMounts",
              "securityContext"),
          "securityContext",
          Set.of("capabilities"),
          "capabilities",
          Set.of("add"));

  static final String SUPPORTED =
      "metadata.labels, metadata.annotations, spec.nodeSelector, spec.tolerations, spec.affinity,"
          + " spec.schedulerName, spec.priorityClassName, spec.runtimeClassName,"
          + " spec.imagePullSecrets, spec.topologySpreadConstraints, spec.volumes,"
          + " spec.hostNetwork, spec.resourceClaims and, in spec.containers[0], image,"
          + " imagePullPolicy, resources, env, envFrom, volumeMounts,"
          + " securityContext.capabilities.add";

  /**
   * Resource names a rank container may request: the core ones, the GPUs, and the NICs and devices
   * that RDMA device plugins advertise. Anything else is more likely a typo than a device.
   */
  static final String SUPPORTED_RESOURCES =
      "cpu, memory, ephemeral-storage, hugepages-*, nvidia.com/gpu, nvidia.com/hostdev, rdma/*,"
          + " vpc.amazonaws.com/efa";

  private static final Set<String> RESOURCE_NAMES =
      Set.of(
          "cpu",
          "memory",
          "ephemeral-storage",
          PodTemplateFactory.GPU_RESOURCE,
          "nvidia.com/hostdev",
          "vpc.amazonaws.com/efa");
  private static final List<String> RESOURCE_PREFIXES = List.of("hugepages-", "rdma/");

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** Problems of the overlay; {@code sharedMemoryBytes} is -1 when it is not known. */
  public List<String> problems(PodTemplateSpec template, int ranksPerPod, long sharedMemoryBytes) {
    return problems(template, FIELD, ranksPerPod, sharedMemoryBytes);
  }

  /** Problems of an overlay set where {@code field} says (a job's template, the chart's). */
  public List<String> problems(
      PodTemplateSpec template, String field, int ranksPerPod, long sharedMemoryBytes) {
    List<String> problems = new ArrayList<>();
    if (template == null) {
      return problems;
    }
    JsonNode tree = SERIALIZATION.convertValue(template, JsonNode.class);
    unsupportedFields(tree, "", field, problems);
    JsonNode containers = tree.path("spec").path("containers");
    for (int i = 0; i < containers.size(); i++) {
      unsupportedFields(
          containers.get(i), "container", field + ".spec.containers[" + i + "]", problems);
    }
    if (template.getMetadata() != null) {
      for (String reserved :
          List.of(
              CommJob.JOB_LABEL,
              JobNames.JOB_UID_LABEL,
              JobNames.POD_INDEX_LABEL,
              JobNames.RESTART_ATTEMPT_LABEL)) {
        if (template.getMetadata().getLabels() != null
            && template.getMetadata().getLabels().containsKey(reserved)) {
          problems.add(
              "%s.metadata.labels sets %s, which the operator sets".formatted(field, reserved));
        }
      }
    }
    if (template.getSpec() != null) {
      checkContainers(
          template.getSpec().getContainers(), field, ranksPerPod, sharedMemoryBytes, problems);
      checkVolumes(template.getSpec().getVolumes(), field, problems);
      checkClaims(template.getSpec(), field, problems);
    }
    return problems;
  }

  private static void unsupportedFields(
      JsonNode node, String allowedKey, String path, List<String> problems) {
    Set<String> allowed = ALLOWED.get(allowedKey);
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!allowed.contains(name)) {
        problems.add(
            "%s.%s is not supported in the pod template overlay (supported: %s)"
                .formatted(path, name, SUPPORTED));
      } else if (ALLOWED.containsKey(name) && node.get(name).isObject()) {
        unsupportedFields(node.get(name), name, path + "." + name, problems);
      }
    }
  }

  private static void checkContainers(
      List<Container> containers,
      String templateField,
      int ranksPerPod,
      long sharedMemoryBytes,
      List<String> problems) {
    if (containers == null || containers.isEmpty()) {
      return;
    }
    String field = templateField + ".spec.containers";
    if (containers.size() > 1) {
      problems.add(
          "%s has %d entries; the overlay takes one (the %s container)"
              .formatted(field, containers.size(), PodTemplateFactory.CONTAINER_NAME));
    }
    Container container = containers.get(0);
    String prefix = field + "[0]";
    if (container.getName() != null
        && !container.getName().equals(PodTemplateFactory.CONTAINER_NAME)) {
      problems.add(
          "%s.name must be %s or left out, not \"%s\""
              .formatted(prefix, PodTemplateFactory.CONTAINER_NAME, container.getName()));
    }
    List<EnvVar> env = container.getEnv();
    for (int i = 0; env != null && i < env.size(); i++) {
      if (env.get(i).getName() == null) {
        problems.add("%s.env[%d] has no name".formatted(prefix, i));
      } else if (PodTemplateFactory.RESERVED_ENV.contains(env.get(i).getName())) {
        problems.add(
            "%s.env[%d] (%s) is set by the operator".formatted(prefix, i, env.get(i).getName()));
      }
    }
    List<VolumeMount> mounts = container.getVolumeMounts();
    for (int i = 0; mounts != null && i < mounts.size(); i++) {
      String path = mounts.get(i).getMountPath();
      if (mounts.get(i).getName() == null || path == null) {
        problems.add("%s.volumeMounts[%d] needs a name and a mountPath".formatted(prefix, i));
        continue;
      }
      Optional<String> shadowed = reservedMountUnder(path);
      if (shadowed.isPresent()) {
        problems.add(
            "%s.volumeMounts[%d] mounts %s, which the operator mounts%s"
                .formatted(
                    prefix,
                    i,
                    path,
                    shadowed.get().equals(PodTemplateFactory.SHM_PATH)
                        ? " (size it with spec.sharedMemorySize)"
                        : ""));
      }
    }
    checkCapabilities(container.getSecurityContext(), prefix + ".securityContext", problems);
    if (container.getResources() != null) {
      checkResourceNames(
          container.getResources().getLimits(), prefix + ".resources.limits", problems);
      checkResourceNames(
          container.getResources().getRequests(), prefix + ".resources.requests", problems);
      checkResources(
          container.getResources().getLimits(),
          prefix + ".resources.limits",
          ranksPerPod,
          sharedMemoryBytes,
          problems);
      checkResources(
          container.getResources().getRequests(),
          prefix + ".resources.requests",
          ranksPerPod,
          -1,
          problems);
      checkRequestsUnderLimits(container.getResources(), prefix + ".resources", problems);
    }
  }

  /**
   * The operator's mount that {@code path} is or lies under: a mount of /dev/shm/ or of
   * /etc/gpucomm/job.json shadows the operator's as surely as one of its own path.
   */
  private static Optional<String> reservedMountUnder(String path) {
    Path mount;
    try {
      mount = Path.of(path).normalize();
    } catch (InvalidPathException e) {
      return Optional.empty(); // not a path the API server takes either
    }
    return PodTemplateFactory.RESERVED_MOUNT_PATHS.stream().filter(mount::startsWith).findFirst();
  }

  private static void checkResources(
      Map<String, Quantity> resources,
      String field,
      int ranksPerPod,
      long sharedMemoryBytes,
      List<String> problems) {
    if (resources == null) {
      return;
    }
    boolean allQuantities = true;
    for (String name : new TreeSet<>(resources.keySet())) {
      if (resources.get(name) == null
          || !ResourceQuantity.isQuantity(resources.get(name).toString())) {
        allQuantities = false;
        problems.add(
            "%s[\"%s\"] (%s) is not a quantity (e.g. 8Gi, 500m, 2)"
                .formatted(field, name, resources.get(name)));
      }
    }
    if (!allQuantities) {
      return; // the amounts below need quantities to compare
    }
    Quantity gpus = resources.get(PodTemplateFactory.GPU_RESOURCE);
    if (gpus != null
        && Quantity.getAmountInBytes(gpus).compareTo(BigDecimal.valueOf(ranksPerPod)) != 0) {
      problems.add(
          "%s[\"%s\"] (%s) must equal spec.ranksPerPod (%d) or be left out"
              .formatted(field, PodTemplateFactory.GPU_RESOURCE, gpus, ranksPerPod));
    }
    Quantity memory = resources.get("memory");
    if (memory != null
        && sharedMemoryBytes > 0
        && Quantity.getAmountInBytes(memory).compareTo(BigDecimal.valueOf(sharedMemoryBytes)) < 0) {
      problems.add(
          "spec.sharedMemorySize exceeds %s.memory (%s): the pages of /dev/shm count against the container's memory limit"
              .formatted(field, memory));
    }
  }

  /** The API server refuses a container that requests more of a resource than its limit. */
  private static void checkRequestsUnderLimits(
      ResourceRequirements resources, String field, List<String> problems) {
    Map<String, Quantity> requests = resources.getRequests();
    Map<String, Quantity> limits = resources.getLimits();
    if (requests == null || limits == null) {
      return;
    }
    for (String name : new TreeSet<>(requests.keySet())) {
      Quantity request = requests.get(name);
      Quantity limit = limits.get(name);
      if (request == null
          || limit == null
          || !ResourceQuantity.isQuantity(request.toString())
          || !ResourceQuantity.isQuantity(limit.toString())) {
        continue;
      }
      if (Quantity.getAmountInBytes(request).compareTo(Quantity.getAmountInBytes(limit)) > 0) {
        problems.add(
            "%s.requests[\"%s\"] (%s) is more than %s.limits[\"%s\"] (%s)"
                .formatted(field, name, request, field, name, limit));
      }
    }
  }

  private static void checkCapabilities(
      SecurityContext securityContext, String field, List<String> problems) {
    Capabilities capabilities = securityContext == null ? null : securityContext.getCapabilities();
    List<String> added = capabilities == null ? null : capabilities.getAdd();
    for (int i = 0; added != null && i < added.size(); i++) {
      String name = added.get(i);
      if (Arrays.stream(RankCapability.values()).noneMatch(c -> c.name().equals(name))) {
        problems.add(
            "%s.capabilities.add[%d] (%s) is not one a rank container may add (supported: %s)"
                .formatted(
                    field,
                    i,
                    name,
                    String.join(
                        ", ", Arrays.stream(RankCapability.values()).map(Enum::name).toList())));
      }
    }
  }

  private static void checkResourceNames(
      Map<String, Quantity> resources, String field, List<String> problems) {
    if (resources == null) {
      return;
    }
    for (String name : new TreeSet<>(resources.keySet())) {
      if (!RESOURCE_NAMES.contains(name)
          && RESOURCE_PREFIXES.stream().noneMatch(name::startsWith)) {
        problems.add(
            "%s[\"%s\"] is not a resource a rank container may name (supported: %s)"
                .formatted(field, name, SUPPORTED_RESOURCES));
      }
    }
  }

  /**
   * A container's claim must name one of the pod's resourceClaims, or the API server refuses it.
   */
  private static void checkClaims(PodSpec spec, String field, List<String> problems) {
    Set<String> declared = new HashSet<>();
    if (spec.getResourceClaims() != null) {
      spec.getResourceClaims().forEach(claim -> declared.add(claim.getName()));
    }
    List<Container> containers = spec.getContainers();
    if (containers == null
        || containers.isEmpty()
        || containers.get(0).getResources() == null
        || containers.get(0).getResources().getClaims() == null) {
      return;
    }
    List<ResourceClaim> claims = containers.get(0).getResources().getClaims();
    for (int i = 0; i < claims.size(); i++) {
      if (!declared.contains(claims.get(i).getName())) {
        problems.add(
            "%s.spec.containers[0].resources.claims[%d] (%s) names no entry of %s.spec.resourceClaims"
                .formatted(field, i, claims.get(i).getName(), field));
      }
    }
  }

  private static void checkVolumes(List<Volume> volumes, String field, List<String> problems) {
    for (int i = 0; volumes != null && i < volumes.size(); i++) {
      String name = volumes.get(i).getName();
      if (name == null) {
        problems.add("%s.spec.volumes[%d] has no name".formatted(field, i));
      } else if (PodTemplateFactory.RESERVED_VOLUMES.contains(name)) {
        problems.add(
            "%s.spec.volumes[%d] is named %s, a name the operator uses".formatted(field, i, name));
      }
    }
  }
}
