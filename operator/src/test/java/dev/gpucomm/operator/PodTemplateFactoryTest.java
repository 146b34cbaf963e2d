package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The runtime image's pull secrets the operator is configured with, in the pods it builds. */
class PodTemplateFactoryTest {
  private static final JobLayout LAYOUT = new JobLayout(2, 1, DeviceKind.CPU, 900, "1Gi");

  @Test
  void rankPodsPullTheRuntimeImageWithTheConfiguredSecrets() {
    PodTemplateFactory factory = factory(Optional.of(List.of("regcred", "mirror-cred")));

    Pod pod = factory.build(job(), LAYOUT, 1);

    assertThat(pod.getSpec().getImagePullSecrets())
        .extracting(LocalObjectReference::getName)
        .containsExactly("regcred", "mirror-cred");
  }

  @Test
  void withoutConfiguredSecretsRankPodsNameNone() {
    Pod pod = factory(Optional.empty()).build(job(), LAYOUT, 0);

    assertThat(pod.getSpec().getImagePullSecrets()).isEmpty();
  }

  @Test
  void aJobsTemplateNamingItsOwnSecretsReplacesTheConfiguredOnes() {
    CommJob job = job();
    job.getSpec()
        .setTemplate(
            new PodTemplateSpecBuilder()
                .withNewSpec()
                .addNewImagePullSecret("team-cred")
                .endSpec()
                .build());

    Pod pod = factory(Optional.of(List.of("regcred"))).build(job, LAYOUT, 0);

    assertThat(pod.getSpec().getImagePullSecrets())
        .extracting(LocalObjectReference::getName)
        .containsExactly("team-cred");
  }

  @Test
  void rankPodsEndThemselvesWellAfterTheOperatorWouldHaveTimedTheJobOut() {
    CommJob job = job();
    job.getSpec().setSchedulingTimeoutSeconds(120);

    // timeoutSeconds 900 to start (with the scheduling timeout, 120, and the 900 s an autoscaler's
    // node may take) and 900 to run, and 600 more
    assertThat(factory(Optional.empty()).build(job, LAYOUT, 0).getSpec().getActiveDeadlineSeconds())
        .isEqualTo(3420L);
    // the operator's default scheduling timeout where the job names none
    assertThat(
            factory(Optional.empty()).build(job(), LAYOUT, 0).getSpec().getActiveDeadlineSeconds())
        .isEqualTo(2 * 900L + 300L + 900L + 600L);
  }

  private static CommJob job() {
    CommJob job = new CommJob();
    job.setMetadata(
        new ObjectMetaBuilder()
            .withName("sweep")
            .withNamespace("ml")
            .withUid("uid-1")
            .withGeneration(1L)
            .build());
    CommJobSpec spec = new CommJobSpec();
    spec.setWorldSize(2);
    spec.setRanksPerPod(1);
    job.setSpec(spec);
    return job;
  }

  /** A factory whose configuration is the operator's defaults and the given pull secrets. */
  private static PodTemplateFactory factory(Optional<List<String>> pullSecrets) {
    OperatorConfig config =
        (OperatorConfig)
            Proxy.newProxyInstance(
                PodTemplateFactoryTest.class.getClassLoader(),
                new Class<?>[] {OperatorConfig.class},
                (proxy, method, args) ->
                    switch (method.getName()) {
                      case "runtimeImagePullSecrets" -> pullSecrets;
                      case "runtimeImage" -> "ghcr.io/gpucomm/gpucomm-runtime:0.1.0";
                      case "runtimeImagePullPolicy" -> "IfNotPresent";
                      case "rendezvousPort" -> 29500;
                      case "runAsUser" -> 1000L;
                      case "cpuPerRank" -> "2";
                      case "memoryPerRank" -> "4Gi";
                      case "unschedulableTimeout" -> java.time.Duration.ofSeconds(300);
                      case "scaleUpTimeout" -> java.time.Duration.ofMinutes(15);
                      default -> throw new UnsupportedOperationException(method.getName());
                    });
    return new PodTemplateFactory(config, new PodTemplateOverlay());
  }
}
