package dev.gpucomm.operator.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.operator.image.OperatorImageBuild.UsageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The operator image build's command line: what it accepts and the one-line errors it gives. */
class OperatorImageBuildTest {
  @TempDir Path dir;

  @Test
  void givenEveryInputTheEntrypointRunsTheFastJarWithTheJvmOptionsOfApplicationProperties()
      throws Exception {
    OperatorImageSpec spec = OperatorImageBuild.spec(OperatorImageBuild.parse(arguments()));

    assertThat(spec.entrypoint())
        .containsExactly(
            "/opt/java/bin/java",
            "-XX:+UseSerialGC",
            "-Xss512k",
            "-jar",
            "/deployments/quarkus-run.jar");
    assertThat(spec.imageReference()).isEqualTo("registry.example/ml/gpucomm-operator:0.1.0");
  }

  @Test
  void aMissingOptionIsNamed() throws Exception {
    List<String> args = new ArrayList<>(List.of(arguments()));
    int licenses = args.indexOf("--licenses");
    args.subList(licenses, licenses + 2).clear();

    assertThatThrownBy(() -> OperatorImageBuild.parse(args.toArray(String[]::new)))
        .isInstanceOf(UsageException.class)
        .hasMessage("--licenses: missing");
  }

  @Test
  void anUnknownOptionIsNamed() {
    assertThatThrownBy(() -> OperatorImageBuild.parse(new String[] {"--tag", "1"}))
        .isInstanceOf(UsageException.class)
        .hasMessageStartingWith("--tag: unknown option");
  }

  @Test
  void anOperatorNotYetPackagedIsReportedAgainstItsOption() throws Exception {
    Map<String, String> options = OperatorImageBuild.parse(arguments());
    Files.delete(dir.resolve("quarkus-app/quarkus-run.jar"));

    assertThatThrownBy(() -> OperatorImageBuild.spec(options))
        .isInstanceOf(UsageException.class)
        .hasMessageStartingWith("--quarkus-app: no quarkus-run.jar in ");
  }

  @Test
  void aJavaRuntimeWithoutJavaIsReportedAgainstItsOption() throws Exception {
    Map<String, String> options = OperatorImageBuild.parse(arguments());
    Files.delete(dir.resolve("java/bin/java"));

    assertThatThrownBy(() -> OperatorImageBuild.spec(options))
        .isInstanceOf(UsageException.class)
        .hasMessageStartingWith("--java-runtime: no bin/java in ");
  }

  private String[] arguments() throws IOException {
    Path quarkusApp = Files.createDirectories(dir.resolve("quarkus-app"));
    if (!Files.exists(quarkusApp.resolve("quarkus-run.jar"))) {
      Files.createFile(quarkusApp.resolve("quarkus-run.jar"));
    }
    Path java = Files.createDirectories(dir.resolve("java/bin")).resolve("java");
    if (!Files.exists(java)) {
      Files.createFile(java);
      java.toFile().setExecutable(true);
    }
    Path properties = dir.resolve("application.properties");
    Files.writeString(
        properties,
        "quarkus.jib.jvm-additional-arguments=-XX:+UseSerialGC, -Xss512k\nquarkus.banner.enabled=false\n");
    return new String[] {
      "--quarkus-app", quarkusApp.toString(),
      "--java-runtime", dir.resolve("java").toString(),
      "--properties", properties.toString(),
      "--image", "registry.example/ml/gpucomm-operator:0.1.0",
      "--version", "0.1.0",
      "--source", "https://github.com/gpucomm/gpucomm",
      "--licenses", "NOASSERTION",
      "--output", dir.resolve("image.tar").toString(),
      "--work-dir", dir.resolve("work").toString()
    };
  }
}
