package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodRequestsTest {
  @Test
  void aLimitStandsForTheRequestItLeavesOutAndPodsAddUp() {
    Pod rank =
        pod(
            List.of(
                container(
                    Map.of("cpu", "2", "memory", "8Gi"),
                    Map.of("memory", "24Gi", "nvidia.com/gpu", "4"))),
            List.of());

    assertThat(PodRequests.total(List.of(rank, rank)))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "cpu", new Quantity("4"),
                "memory", new Quantity("17179869184"),
                "nvidia.com/gpu", new Quantity("8")));
  }

  @Test
  void anInitContainerRunsAloneBesideTheSidecarsStartedBeforeIt() {
    Container sidecar = container(Map.of("cpu", "500m"), Map.of());
    sidecar.setRestartPolicy("Always");
    Pod pod =
        pod(
            List.of(container(Map.of("cpu", "1"), Map.of())),
            List.of(sidecar, container(Map.of("cpu", "3"), Map.of())));

    // the init container needs 3 + 0.5 while it runs; afterwards the pod needs 1 + 0.5
    assertThat(PodRequests.total(List.of(pod))).containsEntry("cpu", new Quantity("3.5"));
  }

  @Test
  void thePodsOverheadComesOnTop() {
    Pod pod = pod(List.of(container(Map.of("cpu", "1"), Map.of())), List.of());
    pod.getSpec().setOverhead(Map.of("cpu", new Quantity("250m")));

    assertThat(PodRequests.total(List.of(pod))).containsEntry("cpu", new Quantity("1.25"));
  }

  private static Pod pod(List<Container> containers, List<Container> initContainers) {
    return new PodBuilder()
        .withNewSpec()
        .withContainers(containers)
        .withInitContainers(initContainers)
        .endSpec()
        .build();
  }

  private static Container container(Map<String, String> requests, Map<String, String> limits) {
    return new ContainerBuilder()
        .withName("c")
        .withNewResources()
        .withRequests(quantities(requests))
        .withLimits(quantities(limits))
        .endResources()
        .build();
  }

  private static Map<String, Quantity> quantities(Map<String, String> amounts) {
    return amounts.entrySet().stream()
        .collect(
            java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> new Quantity(e.getValue())));
  }
}
