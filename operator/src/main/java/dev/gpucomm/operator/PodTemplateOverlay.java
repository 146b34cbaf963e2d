package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAntiAffinity;
import io.fabric8.kubernetes.api.model.PodAntiAffinityBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Merges a CommJob's {@code template} into a pod the operator built: scheduling fields replace the
 * pod's, lists (volumes, mounts, envFrom, resource claims, added capabilities) are appended, env
 * vars replace same-named ones or are appended, resource maps are merged, hostNetwork brings the
 * DNS policy it needs. {@link TemplateOverlayValidator} has rejected everything else.
 */
@ApplicationScoped
public class PodTemplateOverlay {
  static final String HOST_NETWORK_DNS_POLICY = "ClusterFirstWithHostNet";

  /** Merges {@code template} (may be null) into {@code pod}. */
  public void apply(Pod pod, PodTemplateSpec template) {
    if (template == null) {
      return;
    }
    ObjectMeta metadata = template.getMetadata();
    if (metadata != null) {
      putAll(pod.getMetadata().getLabels(), metadata.getLabels());
      putAll(pod.getMetadata().getAnnotations(), metadata.getAnnotations());
    }
    PodSpec from = template.getSpec();
    if (from == null) {
      return;
    }
    PodSpec to = pod.getSpec();
    if (from.getNodeSelector() != null && !from.getNodeSelector().isEmpty()) {
      to.setNodeSelector(new HashMap<>(from.getNodeSelector()));
    }
    if (from.getTolerations() != null && !from.getTolerations().isEmpty()) {
      to.setTolerations(new ArrayList<>(from.getTolerations()));
    }
    if (from.getAffinity() != null) {
      to.setAffinity(mergedAffinity(to.getAffinity(), from.getAffinity()));
    }
    if (from.getSchedulerName() != null) {
      to.setSchedulerName(from.getSchedulerName());
    }
    if (from.getPriorityClassName() != null) {
      to.setPriorityClassName(from.getPriorityClassName());
    }
    if (from.getRuntimeClassName() != null) {
      to.setRuntimeClassName(from.getRuntimeClassName());
    }
    if (from.getImagePullSecrets() != null && !from.getImagePullSecrets().isEmpty()) {
      to.setImagePullSecrets(new ArrayList<>(from.getImagePullSecrets()));
    }
    if (from.getTopologySpreadConstraints() != null
        && !from.getTopologySpreadConstraints().isEmpty()) {
      to.setTopologySpreadConstraints(new ArrayList<>(from.getTopologySpreadConstraints()));
    }
    if (Boolean.TRUE.equals(from.getHostNetwork())) {
      to.setHostNetwork(true);
      // Without it a pod on the host's network resolves names with the node's resolver, which
      // does not know the job's Service, so the ranks would never find the rendezvous.
      to.setDnsPolicy(HOST_NETWORK_DNS_POLICY);
    }
    to.setResourceClaims(appended(to.getResourceClaims(), from.getResourceClaims()));
    to.setVolumes(appended(to.getVolumes(), from.getVolumes()));
    if (from.getContainers() != null && !from.getContainers().isEmpty()) {
      mergeContainer(to.getContainers().get(0), from.getContainers().get(0));
    }
  }

  private static void mergeContainer(Container to, Container from) {
    if (from.getImage() != null) {
      to.setImage(from.getImage());
    }
    if (from.getImagePullPolicy() != null) {
      to.setImagePullPolicy(from.getImagePullPolicy());
    }
    to.setEnv(mergedEnv(to.getEnv(), from.getEnv()));
    if (from.getEnvFrom() != null && !from.getEnvFrom().isEmpty()) {
      to.setEnv(mergedEnv(to.getEnv(), blankedAgainstEnvFrom(to.getEnv())));
    }
    to.setEnvFrom(appended(to.getEnvFrom(), from.getEnvFrom()));
    to.setVolumeMounts(appended(to.getVolumeMounts(), from.getVolumeMounts()));
    ResourceRequirements resources = from.getResources();
    if (resources != null) {
      ResourceRequirements target = to.getResources();
      target.setLimits(merged(target.getLimits(), resources.getLimits()));
      target.setRequests(merged(target.getRequests(), resources.getRequests()));
      target.setClaims(appended(target.getClaims(), resources.getClaims()));
    }
    Capabilities added =
        from.getSecurityContext() == null ? null : from.getSecurityContext().getCapabilities();
    if (added != null && added.getAdd() != null && !added.getAdd().isEmpty()) {
      Capabilities target = to.getSecurityContext().getCapabilities();
      target.setAdd(appended(target.getAdd(), added.getAdd()));
    }
  }

  /**
   * The operator's env with each template var replacing the one of its name in place (so that
   * $(VAR) references keep their order), or appended.
   */
  private static List<EnvVar> mergedEnv(List<EnvVar> base, List<EnvVar> overlay) {
    List<EnvVar> env = new ArrayList<>(base == null ? List.of() : base);
    if (overlay != null) {
      for (EnvVar var : overlay) {
        int existing = indexOf(env, var.getName());
        if (existing >= 0) {
          env.set(existing, var);
        } else {
          env.add(var);
        }
      }
    }
    return env;
  }

  private static int indexOf(List<EnvVar> env, String name) {
    for (int i = 0; i < env.size(); i++) {
      if (env.get(i).getName().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private static <T> List<T> appended(List<T> base, List<T> extra) {
    List<T> all = new ArrayList<>(base == null ? List.of() : base);
    if (extra != null) {
      all.addAll(extra);
    }
    return all;
  }

  private static Map<String, Quantity> merged(
      Map<String, Quantity> base, Map<String, Quantity> extra) {
    Map<String, Quantity> all = new HashMap<>(base == null ? Map.of() : base);
    if (extra != null) {
      all.putAll(extra);
    }
    return all;
  }

  private static void putAll(Map<String, String> target, Map<String, String> extra) {
    if (extra != null) {
      target.putAll(extra);
    }
  }

  /**
   * The pod's affinity with each kind the template sets replaced: a template that adds a node
   * affinity (a GPU pool, say) keeps the one-pod-per-node anti-affinity. Of a template's
   * podAntiAffinity each non-empty list replaces the built one's, so that preferred terms alone
   * keep the required one-pod-per-node term; an empty podAntiAffinity ({}) drops it.
   */
  private static Affinity mergedAffinity(Affinity built, Affinity template) {
    Affinity merged = built == null ? new Affinity() : new AffinityBuilder(built).build();
    if (template.getNodeAffinity() != null) {
      merged.setNodeAffinity(template.getNodeAffinity());
    }
    if (template.getPodAffinity() != null) {
      merged.setPodAffinity(template.getPodAffinity());
    }
    PodAntiAffinity anti = template.getPodAntiAffinity();
    if (anti != null) {
      boolean required = !isEmpty(anti.getRequiredDuringSchedulingIgnoredDuringExecution());
      boolean preferred = !isEmpty(anti.getPreferredDuringSchedulingIgnoredDuringExecution());
      if ((!required && !preferred) || merged.getPodAntiAffinity() == null) {
        merged.setPodAntiAffinity(anti);
      } else {
        PodAntiAffinity kept = new PodAntiAffinityBuilder(merged.getPodAntiAffinity()).build();
        if (required) {
          kept.setRequiredDuringSchedulingIgnoredDuringExecution(
              anti.getRequiredDuringSchedulingIgnoredDuringExecution());
        }
        if (preferred) {
          kept.setPreferredDuringSchedulingIgnoredDuringExecution(
              anti.getPreferredDuringSchedulingIgnoredDuringExecution());
        }
        merged.setPodAntiAffinity(kept);
      }
    }
    return merged;
  }

  private static boolean isEmpty(List<?> list) {
    return list == null || list.isEmpty();
  }

  /**
   * The reserved variables the pod does not set, set empty (which the ranks read as unset): env
   * wins over envFrom, so a ConfigMap or Secret of the template's envFrom cannot set what the
   * validator refuses in its env, such as GPUCOMM_REPORT_DIR, which would move the report out of
   * the results ConfigMap.
   */
  private static List<EnvVar> blankedAgainstEnvFrom(List<EnvVar> env) {
    Set<String> set = new HashSet<>();
    if (env != null) {
      env.forEach(variable -> set.add(variable.getName()));
    }
    return PodTemplateFactory.RESERVED_ENV.stream()
        .filter(name -> name.startsWith("GPUCOMM_") && !set.contains(name))
        .sorted()
        .map(name -> new EnvVar(name, "", null))
        .toList();
  }
}
