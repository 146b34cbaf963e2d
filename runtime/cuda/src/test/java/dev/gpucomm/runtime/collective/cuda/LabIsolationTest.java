package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The diagnostics in the lab package stay out of the product: no product class refers to them. */
class LabIsolationTest {
  private static final Path MAIN = Path.of("src/main/java");
  private static final Path LAB = MAIN.resolve("dev/gpucomm/runtime/collective/cuda/lab");
  private static final String LAB_PACKAGE = "dev.gpucomm.runtime.collective.cuda.lab";

  @Test
  void noClassOutsideTheLabPackageRefersToIt() throws IOException {
    List<String> offenders;
    try (Stream<Path> files = Files.walk(MAIN)) {
      offenders =
          files
              .filter(file -> file.toString().endsWith(".java"))
              .filter(file -> !file.startsWith(LAB))
              .filter(file -> read(file).contains(LAB_PACKAGE))
              .map(Path::toString)
              .toList();
    }

    assertThat(offenders).as("product sources that refer to " + LAB_PACKAGE).isEmpty();
  }

  @Test
  void theDiagnosticsRunFromAMainClassThatLaunchersNameAsText() throws Exception {
    Class<?> diagnostics =
        Class.forName(LAB_PACKAGE + ".CudaDiagnostics", false, getClass().getClassLoader());
    Method main = diagnostics.getMethod("main", String[].class);

    assertThat(Modifier.isPublic(main.getModifiers())).isTrue();
    assertThat(Modifier.isStatic(main.getModifiers())).isTrue();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
