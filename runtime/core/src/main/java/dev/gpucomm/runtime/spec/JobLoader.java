package dev.gpucomm.runtime.spec;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.runtime.files.BoundedFile;
import dev.gpucomm.runtime.files.UnreadableFileException;
import java.nio.file.Path;

/** Reads a CommJob file (YAML or JSON), applies the CRD's defaults and validates it. */
public final class JobLoader {
  private final JobParser parser = new JobParser();

  /** Loads {@code file}; errors name the file as the user wrote it. */
  public LoadedJob load(Path file) {
    String source = file.toString();
    if (source.isEmpty()) {
      throw new InvalidJobException("job file ''", "", "the name is empty");
    }
    String text;
    try {
      text = BoundedFile.readText(file, MAX_JOB_BYTES);
    } catch (UnreadableFileException e) {
      String reason =
          e.tooLarge() ? e.getMessage() + "; a CommJob file is a few kilobytes" : e.getMessage();
      throw new InvalidJobException(source, "", reason);
    }
    return load(text, source);
  }

  /** The largest job file read: a CommJob is a few kilobytes. */
  public static final int MAX_JOB_BYTES = 1 << 20;

  /** Loads a job from text; {@code source} names it in error messages. */
  public LoadedJob load(String text, String source) {
    return complete(parser.parse(text, source), source);
  }

  /** Defaults and validates a job built in memory (e.g. by {@code gpucomm bench}). */
  public LoadedJob complete(CommJob job, String source) {
    boolean deviceExplicit = job.getSpec() != null && job.getSpec().getDevice() != null;
    // before the defaults: with no device named, a local run may still choose cpu
    JobValidator.validate(job, source);
    CommJobDefaults.apply(job);
    return new LoadedJob(job, source, deviceExplicit);
  }
}
