package dev.gpucomm.operator;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import jakarta.enterprise.context.ApplicationScoped;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a CommJob's pod template overlay: only the fields {@link PodTemplateOverlay} merges, and
 * none that would undo what the operator sets up (the contract env, /dev/shm, the GPU count).
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
              "volumes"),
          "container",
          Set.of(
              "name", "image", "imagePullPolicy", "resources", "env", "envFrom", "volumeMounts"));

  static final String SUPPORTED =
      "metadata.labels, metadata.annotations, spec.nodeSelector, spec.tolerations, spec.affinity,"
          + " spec.schedulerName, spec.priorityClassName, spec.runtimeClassName,"
          + " spec.imagePullSecrets, spec.topologySpreadConstraints, spec.volumes and, in"
          + " spec.containers[0], image, imagePullPolicy, resources, env, envFrom, volumeMounts";

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** Problems of the overlay; {@code sharedMemoryBytes} is -1 when it is not known. */
  public List<String> problems(PodTemplateSpec template, int ranksPerPod, long sharedMemoryBytes) {
    List<String> problems = new ArrayList<>();
    if (template == null) {
      return problems;
    }
    JsonNode tree = SERIALIZATION.convertValue(template, JsonNode.class);
    unsupportedFields(tree, "", FIELD, problems);
    JsonNode containers = tree.path("spec").path("containers");
    for (int i = 0; i < containers.size(); i++) {
      unsupportedFields(
          containers.get(i), "container", FIELD + ".spec.containers[" + i + "]", problems);
    }
    if (template.getMetadata() != null) {
      for (String reserved : List.of(CommJob.JOB_LABEL, JobNames.POD_INDEX_LABEL)) {
        if (template.getMetadata().getLabels() != null
            && template.getMetadata().getLabels().containsKey(reserved)) {
          problems.add(
              "%s.metadata.labels sets %s, which the operator sets".formatted(FIELD, reserved));
        }
      }
    }
    if (template.getSpec() != null) {
      checkContainers(template.getSpec().getContainers(), ranksPerPod, sharedMemoryBytes, problems);
      checkVolumes(template.getSpec().getVolumes(), problems);
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
      List<Container> containers, int ranksPerPod, long sharedMemoryBytes, List<String> problems) {
    if (containers == null || containers.isEmpty()) {
      return;
    }
    String field = FIELD + ".spec.containers";
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
      if (PodTemplateFactory.RESERVED_ENV.contains(env.get(i).getName())) {
        problems.add(
            "%s.env[%d] (%s) is set by the operator".formatted(prefix, i, env.get(i).getName()));
      }
    }
    List<VolumeMount> mounts = container.getVolumeMounts();
    for (int i = 0; mounts != null && i < mounts.size(); i++) {
      String path = mounts.get(i).getMountPath();
      if (PodTemplateFactory.RESERVED_MOUNT_PATHS.contains(path)) {
        problems.add(
            "%s.volumeMounts[%d] mounts %s, which the operator mounts%s"
                .formatted(
                    prefix,
                    i,
                    path,
                    path.equals(PodTemplateFactory.SHM_PATH)
                        ? " (size it with spec.sharedMemorySize)"
                        : ""));
      }
    }
    if (container.getResources() != null) {
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
    }
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

  private static void checkVolumes(List<Volume> volumes, List<String> problems) {
    for (int i = 0; volumes != null && i < volumes.size(); i++) {
      String name = volumes.get(i).getName();
      if (PodTemplateFactory.RESERVED_VOLUMES.contains(name)) {
        problems.add(
            "%s.spec.volumes[%d] is named %s, a name the operator uses".formatted(FIELD, i, name));
      }
    }
  }
}
