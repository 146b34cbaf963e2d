package dev.gpucomm.e2e;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * How the end-to-end suite runs, from system properties (set by the e2e pom from {@code -De2e.*})
 * and the environment: offline against a mock API server, or against the cluster of a kubeconfig.
 */
public record E2eSettings(
    boolean real,
    Optional<Path> kubeconfig,
    String device,
    Optional<String> operatorImage,
    Optional<String> runtimeImage,
    String helm,
    Path repoRoot,
    Path artifactsDir,
    Path operatorApp,
    Path runtimeClasspathFile,
    Path javaHome) {

  /** Reads the settings of this run. */
  public static E2eSettings fromSystem() {
    Path repoRoot = Path.of(property("e2e.repoRoot").orElse("..")).toAbsolutePath().normalize();
    Optional<Path> kubeconfig =
        property("e2e.kubeconfig")
            .or(() -> Optional.ofNullable(System.getenv("KUBECONFIG")).filter(s -> !s.isBlank()))
            .map(Path::of);
    return new E2eSettings(
        Boolean.parseBoolean(property("e2e.real").orElse("false")),
        kubeconfig,
        property("e2e.device").orElse("cpu"),
        property("e2e.operatorImage"),
        property("e2e.runtimeImage"),
        property("e2e.helm").orElse("helm"),
        repoRoot,
        Path.of(property("e2e.artifactsDir").orElse("target/e2e-artifacts")).toAbsolutePath(),
        Path.of(
            property("e2e.operatorApp")
                .orElse(
                    repoRoot.resolve("operator/target/quarkus-app/quarkus-run.jar").toString())),
        Path.of(property("e2e.runtimeClasspathFile").orElse("target/runtime.classpath"))
            .toAbsolutePath(),
        Path.of(property("e2e.javaHome").orElse(System.getProperty("java.home"))));
  }

  /** The java executable that runs the operator and the simulated pods' processes. */
  public Path java() {
    return javaHome.resolve("bin").resolve("java");
  }

  /** The runtime's classpath as the build wrote it, for the simulated pods' {@code gpucomm}. */
  public String runtimeClasspath() {
    try {
      return Files.readString(runtimeClasspathFile).strip();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(
          "no runtime classpath at " + runtimeClasspathFile + ": build the e2e module with Maven",
          e);
    }
  }

  private static Optional<String> property(String name) {
    return Optional.ofNullable(System.getProperty(name)).filter(s -> !s.isBlank());
  }
}
