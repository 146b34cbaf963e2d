package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;

/**
 * The resources of a rank container before the template overlay is merged: the GPUs of its ranks,
 * CPU and memory requests derived from {@code ranksPerPod}, and a memory limit that leaves room for
 * the memory-backed /dev/shm, so that rank pods are neither BestEffort (evicted first, refused by a
 * ResourceQuota on requests) nor OOM-killed by their own shared memory.
 *
 * <p>Memory the overlay names wins, and the other side follows it: a request alone gets a limit of
 * that request plus /dev/shm, a limit alone lowers the default request to fit under it. A CPU limit
 * alone likewise lowers the default CPU request; CPU gets no limit by default (a limit throttles
 * the host threads that feed the GPUs).
 */
final class RankContainerResources {
  static final String CPU = "cpu";
  static final String MEMORY = "memory";

  private RankContainerResources() {}

  static ResourceRequirements of(
      JobLayout layout, OperatorConfig config, PodTemplateSpec template) {
    Map<String, Quantity> overlayRequests = overlay(template, true);
    Map<String, Quantity> overlayLimits = overlay(template, false);
    Map<String, Quantity> requests = new HashMap<>();
    Map<String, Quantity> limits = new HashMap<>();
    if (layout.device() == DeviceKind.CUDA) {
      limits.put(
          PodTemplateFactory.GPU_RESOURCE, new Quantity(Integer.toString(layout.ranksPerPod())));
    }
    Quantity cpuRequest =
        CommJobDefaults.rankPodCpuRequest(layout.ranksPerPod(), config.cpuPerRank());
    Quantity cpuLimit = overlayLimits.get(CPU);
    if (cpuLimit != null
        && cpuLimit.getNumericalAmount().compareTo(cpuRequest.getNumericalAmount()) < 0) {
      cpuRequest = cpuLimit; // a request above the limit would make the pod invalid
    }
    requests.put(CPU, cpuRequest);
    Quantity memoryRequest = overlayRequests.get(MEMORY);
    Quantity memoryLimit = overlayLimits.get(MEMORY);
    if (memoryRequest == null) {
      memoryRequest =
          CommJobDefaults.rankPodMemoryRequest(layout.ranksPerPod(), config.memoryPerRank());
      if (memoryLimit != null && bytes(memoryLimit).compareTo(bytes(memoryRequest)) < 0) {
        memoryRequest = memoryLimit;
      }
    }
    if (memoryLimit == null) {
      memoryLimit = CommJobDefaults.rankPodMemoryLimit(memoryRequest, layout.sharedMemorySize());
    }
    requests.put(MEMORY, memoryRequest);
    limits.put(MEMORY, memoryLimit);
    return new ResourceRequirementsBuilder().withRequests(requests).withLimits(limits).build();
  }

  private static Map<String, Quantity> overlay(PodTemplateSpec template, boolean requests) {
    if (template == null
        || template.getSpec() == null
        || template.getSpec().getContainers() == null
        || template.getSpec().getContainers().isEmpty()) {
      return Map.of();
    }
    Container container = template.getSpec().getContainers().get(0);
    ResourceRequirements resources = container.getResources();
    if (resources == null) {
      return Map.of();
    }
    Map<String, Quantity> values = requests ? resources.getRequests() : resources.getLimits();
    return values == null ? Map.of() : values;
  }

  private static BigDecimal bytes(Quantity quantity) {
    return Quantity.getAmountInBytes(quantity);
  }
}
