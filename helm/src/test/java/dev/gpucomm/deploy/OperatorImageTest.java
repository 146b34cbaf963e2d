package dev.gpucomm.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The operator image as the operator module's Quarkus configuration builds it (jib, on request
 * only) is the image the chart deploys, on a Java that runs what the build compiles.
 */
class OperatorImageTest {
  private final Properties quarkus = load(Path.of(System.getProperty("operatorProperties")));

  @Test
  void theImageIsBuiltOnlyOnRequestAndIsTheOneTheChartDeploys() throws IOException {
    assertThat(quarkus.getProperty("quarkus.container-image.build")).isEqualTo("false");
    JsonNode values =
        new ObjectMapper(new YAMLFactory())
            .readTree(Path.of(System.getProperty("chart"), "values.yaml").toFile());
    assertThat(values.at("/image/registry").asText())
        .isEqualTo(quarkus.getProperty("quarkus.container-image.registry"));
    assertThat(values.at("/image/repository").asText())
        .isEqualTo(
            quarkus.getProperty("quarkus.container-image.group")
                + "/"
                + quarkus.getProperty("quarkus.container-image.name"));
    // the chart pulls <repository>:<appVersion> unless told otherwise
    assertThat(values.at("/image/tag").asText()).isEmpty();
    JsonNode chart =
        new ObjectMapper(new YAMLFactory())
            .readTree(Path.of(System.getProperty("chart"), "Chart.yaml").toFile());
    assertThat(quarkus.getProperty("quarkus.container-image.tag"))
        .isEqualTo(chart.at("/appVersion").asText());
  }

  @Test
  void itRunsOnJava25AsANonRootUser() {
    assertThat(quarkus.getProperty("quarkus.jib.base-jvm-image")).contains(":25-");
    assertThat(Integer.parseInt(quarkus.getProperty("quarkus.jib.user"))).isPositive();
    assertThat(quarkus.getProperty("quarkus.jib.jvm-additional-arguments"))
        .contains("-XX:MaxRAMPercentage=");
  }

  private static Properties load(Path file) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new AssertionError("cannot read " + file, e);
    }
    return properties;
  }
}
