package dev.gpucomm.runtime.spec;

import dev.gpucomm.api.v1alpha1.CommJob;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Reads a CommJob file (YAML or JSON), applies the CRD's defaults and validates it. */
public final class JobLoader {
  private final JobParser parser = new JobParser();

  /** Loads {@code file}; errors name the file as the user wrote it. */
  public LoadedJob load(Path file) {
    String source = file.toString();
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new InvalidJobException(source, "", "no such file");
    } catch (MalformedInputException e) {
      throw new InvalidJobException(source, "", "not UTF-8 text");
    } catch (IOException e) {
      throw new InvalidJobException(
          source, "", "cannot read (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
    }
    return load(text, source);
  }

  /** Loads a job from text; {@code source} names it in error messages. */
  public LoadedJob load(String text, String source) {
    return complete(parser.parse(text, source), source);
  }

  /** Defaults and validates a job built in memory (e.g. by {@code gpucomm bench}). */
  public LoadedJob complete(CommJob job, String source) {
    boolean deviceExplicit = job.getSpec() != null && job.getSpec().getDevice() != null;
    JobDefaults.apply(job);
    JobValidator.validate(job, source);
    return new LoadedJob(job, source, deviceExplicit);
  }
}
