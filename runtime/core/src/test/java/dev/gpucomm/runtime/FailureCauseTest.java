package dev.gpucomm.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import org.junit.jupiter.api.Test;

/** A failure as a user reads it: its cause in words, a Java type only where gpucomm has a bug. */
class FailureCauseTest {
  @Test
  void aFileFailureNamesTheFileAndWhy() {
    assertThat(FailureCause.of(new NoSuchFileException("/jobs/a.yaml")))
        .isEqualTo("/jobs/a.yaml: no such file");
    assertThat(FailureCause.of(new UncheckedIOException(new AccessDeniedException("/out/r"))))
        .isEqualTo("/out/r: permission denied");
    assertThat(FailureCause.of(new IOException("Broken pipe"))).isEqualTo("Broken pipe");
  }

  @Test
  void ourOwnAndTheJdksExpectedFailuresAreTheirMessage() {
    assertThat(FailureCause.of(new UsageException("job.yaml: spec.worldSize: required")))
        .isEqualTo("job.yaml: spec.worldSize: required");
    assertThat(FailureCause.of(new IllegalArgumentException("sizes must be positive")))
        .isEqualTo("sizes must be positive");
    assertThat(FailureCause.of(new IllegalStateException("no CUDA device: no driver")))
        .isEqualTo("no CUDA device: no driver");
    assertThat(
            FailureCause.of(
                new UncheckedIOException("cannot write the report into /out", new IOException())))
        .isEqualTo("cannot write the report into /out");
  }

  @Test
  void runningOutOfHeapSaysSo() {
    assertThat(FailureCause.of(new OutOfMemoryError("Java heap space")))
        .isEqualTo("out of Java heap memory (Java heap space)");
  }

  @Test
  void aMissingNativeLibraryOrClassIsAProblemOfTheHostOrBuildInWords() {
    assertThat(
            FailureCause.of(
                new UnsatisfiedLinkError(
                    "no JCudaDriver-12.0.0-linux-x86_64 in java.library.path")))
        .isEqualTo(
            "a native library could not be loaded (no JCudaDriver-12.0.0-linux-x86_64 in"
                + " java.library.path)");
    assertThat(FailureCause.of(new NoClassDefFoundError("jcuda/driver/JCudaDriver")))
        .isEqualTo("a class is missing from this build (jcuda.driver.JCudaDriver)");
    assertThat(
            FailureCause.of(
                new ExceptionInInitializerError(
                    new UnsatisfiedLinkError("libcuda.so.1: cannot open shared object file"))))
        .isEqualTo(
            "a native library could not be loaded (libcuda.so.1: cannot open shared object"
                + " file)");
  }

  @Test
  void aDefectOfGpucommKeepsItsTypeForItsMaintainers() {
    assertThat(FailureCause.of(new NullPointerException("Cannot invoke \"x\"")))
        .isEqualTo("NullPointerException: Cannot invoke \"x\"");
    assertThat(FailureCause.of(new ClassCastException())).isEqualTo("ClassCastException");
  }
}
