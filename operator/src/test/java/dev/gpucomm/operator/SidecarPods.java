package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;

/** Pods whose gpucomm container has exited while a sidecar (a service mesh's proxy) runs on. */
final class SidecarPods {
  private SidecarPods() {}

  /**
   * A Running pod whose gpucomm container exited with {@code exitCode} and said {@code message}.
   */
  static Pod runningAfterExit(String name, int exitCode, String message) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewStatus()
        .withPhase("Running")
        .addNewContainerStatus()
        .withName("gpucomm")
        .withNewState()
        .withNewTerminated()
        .withExitCode(exitCode)
        .withMessage(message)
        .withFinishedAt("2026-01-01T00:00:08Z")
        .endTerminated()
        .endState()
        .endContainerStatus()
        .addNewContainerStatus()
        .withName("istio-proxy")
        .withNewState()
        .withNewRunning()
        .endRunning()
        .endState()
        .endContainerStatus()
        .endStatus()
        .build();
  }
}
