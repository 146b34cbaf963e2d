package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodTemplateOverlayTest {
  private final PodTemplateOverlay overlay = new PodTemplateOverlay();

  @Test
  void envVarsReplaceTheirNamesakesInPlaceAndNewOnesAreAppended() {
    Pod pod = basePod();
    overlay.apply(
        pod,
        template()
            .editOrNewSpec()
            .addNewContainer()
            .addNewEnv()
            .withName("NCCL_DEBUG")
            .withValue("INFO")
            .endEnv()
            .addNewEnv()
            .withName("NCCL_ALGO")
            .withValue("Ring")
            .endEnv()
            .endContainer()
            .endSpec()
            .build());

    assertThat(pod.getSpec().getContainers().get(0).getEnv())
        .extracting(EnvVar::getName, EnvVar::getValue)
        .containsExactly(
            tuple("GPUCOMM_JOB", "j"), tuple("NCCL_DEBUG", "INFO"), tuple("NCCL_ALGO", "Ring"));
  }

  @Test
  void envFromCannotSetTheVariablesTheValidatorRefusesInEnv() {
    Pod pod = basePod();
    overlay.apply(
        pod,
        template()
            .editOrNewSpec()
            .addNewContainer()
            .addNewEnvFrom()
            .withNewConfigMapRef()
            .withName("team-settings")
            .endConfigMapRef()
            .endEnvFrom()
            .endContainer()
            .endSpec()
            .build());

    // env wins over envFrom; the ranks read an empty value as unset
    assertThat(pod.getSpec().getContainers().get(0).getEnv())
        .extracting(EnvVar::getName, EnvVar::getValue)
        .contains(
            tuple("GPUCOMM_JOB", "j"),
            tuple("GPUCOMM_DEVICE", ""),
            tuple("GPUCOMM_KUBE_API", ""),
            tuple("GPUCOMM_REPORT_DIR", ""),
            tuple("GPUCOMM_TEST_FAIL_RANK", ""))
        .doesNotContain(tuple("GPUCOMM_JOB", ""));
    assertThat(pod.getSpec().getContainers().get(0).getEnvFrom()).hasSize(1);
  }

  @Test
  void resourceMapsAreMergedAndSchedulingFieldsReplaced() {
    Pod pod = basePod();
    overlay.apply(
        pod,
        template()
            .editOrNewSpec()
            .withNodeSelector(Map.of("pool", "h200"))
            .withRuntimeClassName("nvidia")
            .addNewContainer()
            .withNewResources()
            .addToLimits("memory", new Quantity("64Gi"))
            .addToRequests("cpu", new Quantity("8"))
            .endResources()
            .withImagePullPolicy("Always")
            .endContainer()
            .endSpec()
            .build());

    assertThat(pod.getSpec().getNodeSelector()).containsExactly(Map.entry("pool", "h200"));
    assertThat(pod.getSpec().getRuntimeClassName()).isEqualTo("nvidia");
    assertThat(pod.getSpec().getContainers().get(0).getResources().getLimits())
        .containsEntry("nvidia.com/gpu", new Quantity("8"))
        .containsEntry("memory", new Quantity("64Gi"));
    assertThat(pod.getSpec().getContainers().get(0).getResources().getRequests())
        .containsEntry("cpu", new Quantity("8"));
    assertThat(pod.getSpec().getContainers().get(0).getImagePullPolicy()).isEqualTo("Always");
    assertThat(pod.getSpec().getContainers().get(0).getImage()).isEqualTo("runtime:1");
  }

  @Test
  void noTemplateLeavesThePodAsBuilt() {
    Pod pod = basePod();
    Pod before = new PodBuilder(pod).build();
    overlay.apply(pod, null);
    assertThat(pod).isEqualTo(before);
  }

  private static PodTemplateSpecBuilder template() {
    return new PodTemplateSpecBuilder(new PodTemplateSpec());
  }

  private static Pod basePod() {
    return new PodBuilder()
        .withNewMetadata()
        .withName("j-0")
        .addToLabels("gpucomm.dev/job", "j")
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("gpucomm")
        .withImage("runtime:1")
        .addNewEnv()
        .withName("GPUCOMM_JOB")
        .withValue("j")
        .endEnv()
        .addNewEnv()
        .withName("NCCL_DEBUG")
        .withValue("WARN")
        .endEnv()
        .withNewResources()
        .addToLimits("nvidia.com/gpu", new Quantity("8"))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }
}
