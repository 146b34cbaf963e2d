package dev.gpucomm.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The defaults applied in code must be the ones the API server applies from the CRD. */
class CommJobDefaultsTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @Test
  void everyCrdDefaultIsAppliedInCodeWithTheSameValue() throws Exception {
    JsonNode schema;
    try (InputStream crd =
        CommJob.class.getResourceAsStream("/META-INF/fabric8/commjobs.gpucomm.dev-v1.yml")) {
      assertThat(crd).as("generated CRD on the classpath").isNotNull();
      schema =
          new ObjectMapper(new YAMLFactory())
              .readTree(crd)
              .at("/spec/versions/0/schema/openAPIV3Schema/properties/spec");
    }
    CommJob job = new CommJob();
    CommJobSpec spec = new CommJobSpec();
    spec.setWorkload(
        new Workload()
            .withBenchmark(new BenchmarkSpec())
            .withTune(new TuneSpec())
            .withProgram(new ProgramSpec())
            .withFabric(new FabricSpec()));
    spec.setHeuristic(new Heuristic());
    spec.setBaseline(new Baseline());
    spec.setFailurePolicy(new FailurePolicy());
    job.setSpec(spec);
    JsonNode defaulted = MAPPER.valueToTree(CommJobDefaults.apply(job).getSpec());

    List<String> checked = new ArrayList<>();
    compare("spec", schema, defaulted, checked);

    assertThat(checked).as("defaults found in the CRD").hasSizeGreaterThan(15);
  }

  private static void compare(String path, JsonNode schema, JsonNode value, List<String> checked) {
    if (schema.has("default")) {
      assertThat(value).as(path + " is defaulted in code").isNotNull();
      JsonNode expected = schema.get("default");
      if (expected.isNumber()) {
        assertThat(value.asDouble()).as(path).isEqualTo(expected.asDouble());
      } else {
        assertThat(value).as(path).isEqualTo(expected);
      }
      checked.add(path);
    }
    schema
        .path("properties")
        .properties()
        .forEach(
            field ->
                compare(
                    path + "." + field.getKey(),
                    field.getValue(),
                    value == null ? null : value.get(field.getKey()),
                    checked));
  }
}
