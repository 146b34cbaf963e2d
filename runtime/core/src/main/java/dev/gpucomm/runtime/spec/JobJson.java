package dev.gpucomm.runtime.spec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import java.io.UncheckedIOException;

/**
 * Writes a CommJob as the job.json that a local run's ranks read (the form the operator writes,
 * without spec.template, which only shapes pods).
 */
public final class JobJson {
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .addMixIn(CommJobSpec.class, WithoutPodTemplate.class);

  private JobJson() {}

  public static String write(CommJob job) {
    try {
      return MAPPER.writeValueAsString(job);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot serialize CommJob", e);
    }
  }
}
