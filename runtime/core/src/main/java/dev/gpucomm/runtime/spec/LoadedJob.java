package dev.gpucomm.runtime.spec;

import dev.gpucomm.api.v1alpha1.CommJob;
import java.util.function.UnaryOperator;

/**
 * A parsed, defaulted and validated CommJob, with where it came from, whether its author chose the
 * device (a local run may pick one itself only when they did not), and how its author spelled its
 * fields: a job file's paths, or the flags of a command that built the job.
 */
public record LoadedJob(
    CommJob job, String source, boolean deviceExplicit, UnaryOperator<String> fieldSpelling) {

  /** A job whose fields are spelled as a job file spells them (spec.worldSize). */
  public LoadedJob(CommJob job, String source, boolean deviceExplicit) {
    this(job, source, deviceExplicit, UnaryOperator.identity());
  }

  public String name() {
    return job.getMetadata().getName();
  }

  /** The field at {@code path} (spec.worldSize) as its author wrote it (--world, say). */
  public String field(String path) {
    return fieldSpelling.apply(path);
  }

  /** This job with its fields spelled by {@code spelling}: a command's flags. */
  public LoadedJob withFieldSpelling(UnaryOperator<String> spelling) {
    return new LoadedJob(job, source, deviceExplicit, spelling);
  }
}
