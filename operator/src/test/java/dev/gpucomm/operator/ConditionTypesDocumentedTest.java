package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code kubectl explain commjob.status.conditions} names every condition type the operator writes,
 * so that a user meeting one in {@code kubectl describe} can look it up.
 */
class ConditionTypesDocumentedTest {
  private static final List<String> CONDITION_TYPES =
      List.of(
          Reasons.READY,
          Reasons.SUCCEEDED,
          Reasons.FAILED,
          Reasons.SUSPENDED,
          Reasons.RESTARTING,
          Reasons.QUEUED,
          Reasons.SPEC_CHANGED,
          Reasons.REGRESSED,
          Reasons.MEETS_EXPECTATIONS,
          Reasons.DEGRADED);

  @Test
  void theCrdDescribesEveryConditionTypeTheOperatorWrites() throws Exception {
    String description;
    try (InputStream crd =
        ConditionTypesDocumentedTest.class.getResourceAsStream(CommJobCrdSetup.CRD_RESOURCE)) {
      description =
          new ObjectMapper(new YAMLFactory())
              .readTree(crd)
              .at(
                  "/spec/versions/0/schema/openAPIV3Schema/properties/status/properties"
                      + "/conditions/description")
              .asText();
    }

    assertThat(description).contains(CONDITION_TYPES);
  }
}
