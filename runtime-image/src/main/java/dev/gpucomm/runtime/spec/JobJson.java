package dev.gpucomm.runtime.spec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.gpucomm.api.v1alpha1.CommJob;
import java.io.UncheckedIOException;

/** Writes a CommJob as the job.json that ranks read (the same form the operator writes). */
public final class JobJson {
  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private JobJson() {}

  public static String write(CommJob job) {
    try {
      return MAPPER.writeValueAsString(job);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot serialize CommJob", e);
    }
  }
}
