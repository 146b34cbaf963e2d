package dev.gpucomm.runtime.spec;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
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
      text = readBounded(file);
    } catch (NoSuchFileException e) {
      throw new InvalidJobException(source, "", "no such file");
    } catch (MalformedInputException e) {
      throw new InvalidJobException(source, "", "not UTF-8 text");
    } catch (JobFileTooLargeException e) {
      throw new InvalidJobException(source, "", e.getMessage());
    } catch (IOException e) {
      throw new InvalidJobException(
          source, "", "cannot read (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
    }
    return load(text, source);
  }

  /**
   * The file's text, refusing more than {@link #MAX_JOB_BYTES}: a CommJob is a few kilobytes, and
   * reading {@code /dev/zero} or a mistaken multi-gigabyte file must end in one line, not in an
   * exhausted heap.
   */
  private static String readBounded(Path file) throws IOException {
    if (Files.isDirectory(file)) {
      throw new IOException("is a directory");
    }
    try (InputStream in = Files.newInputStream(file)) {
      byte[] bytes = in.readNBytes(MAX_JOB_BYTES + 1);
      if (bytes.length > MAX_JOB_BYTES) {
        throw new JobFileTooLargeException();
      }
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    }
  }

  /** The largest job file read: 1 MiB. */
  static final int MAX_JOB_BYTES = 1 << 20;

  private static final class JobFileTooLargeException extends IOException {
    JobFileTooLargeException() {
      super("larger than " + (MAX_JOB_BYTES >> 20) + " MiB; a CommJob file is a few kilobytes");
    }
  }

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
