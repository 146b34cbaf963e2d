package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.math.BigDecimal;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What pods ask the scheduler for, by the scheduler's rules: a container's limit stands for a
 * request it leaves out, the containers of a pod add up, an init container runs alone (after the
 * sidecars started before it) so the pod needs the larger of the two, and the pod's overhead comes
 * on top. A gang scheduler admits a group only when this total fits its queue.
 */
final class PodRequests {
  private PodRequests() {}

  /** The sum of {@code pods}' requests, per resource name, in canonical quantities. */
  static Map<String, Quantity> total(Collection<Pod> pods) {
    Map<String, BigDecimal> sum = new TreeMap<>();
    pods.forEach(
        pod ->
            of(pod.getSpec()).forEach((name, amount) -> sum.merge(name, amount, BigDecimal::add)));
    Map<String, Quantity> total = new TreeMap<>();
    sum.forEach(
        (name, amount) ->
            total.put(name, new Quantity(amount.stripTrailingZeros().toPlainString())));
    return total;
  }

  private static Map<String, BigDecimal> of(PodSpec spec) {
    Map<String, BigDecimal> running = new TreeMap<>();
    Map<String, BigDecimal> sidecars = new TreeMap<>();
    Map<String, BigDecimal> initPeak = new TreeMap<>();
    for (Container init : listOf(spec.getInitContainers())) {
      Map<String, BigDecimal> own = of(init);
      if ("Always".equals(init.getRestartPolicy())) {
        // a sidecar keeps running beside the containers that follow it
        own.forEach((name, amount) -> sidecars.merge(name, amount, BigDecimal::add));
        continue;
      }
      own.forEach(
          (name, amount) ->
              initPeak.merge(
                  name, amount.add(sidecars.getOrDefault(name, BigDecimal.ZERO)), BigDecimal::max));
    }
    for (Container container : listOf(spec.getContainers())) {
      of(container).forEach((name, amount) -> running.merge(name, amount, BigDecimal::add));
    }
    sidecars.forEach((name, amount) -> running.merge(name, amount, BigDecimal::add));
    initPeak.forEach((name, amount) -> running.merge(name, amount, BigDecimal::max));
    if (spec.getOverhead() != null) {
      spec.getOverhead()
          .forEach(
              (name, amount) -> running.merge(name, amount.getNumericalAmount(), BigDecimal::add));
    }
    return running;
  }

  private static Map<String, BigDecimal> of(Container container) {
    Map<String, BigDecimal> amounts = new TreeMap<>();
    ResourceRequirements resources = container.getResources();
    if (resources == null) {
      return amounts;
    }
    Objects.requireNonNullElse(resources.getLimits(), Map.<String, Quantity>of())
        .forEach((name, amount) -> amounts.put(name, amount.getNumericalAmount()));
    Objects.requireNonNullElse(resources.getRequests(), Map.<String, Quantity>of())
        .forEach((name, amount) -> amounts.put(name, amount.getNumericalAmount()));
    return amounts;
  }

  private static <T> List<T> listOf(List<T> list) {
    return list == null ? List.of() : list;
  }
}
