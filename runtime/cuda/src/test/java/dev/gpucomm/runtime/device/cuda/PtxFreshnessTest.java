package dev.gpucomm.runtime.device.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The committed PTX was built from the committed CUDA sources. Without nvcc the recorded source
 * checksums catch an edited .cu file or header; where the build compiled fresh PTX (nvcc present,
 * profile {@code ptx}), the committed PTX must equal it.
 */
class PtxFreshnessTest {
  private static final Path SOURCES = Path.of("src/main/cuda");
  private static final Path COMMITTED = Path.of("src/main/resources/ptx");
  private static final Path FRESH = Path.of("target/ptx-fresh");
  private static final String REFRESH =
      "; refresh with runtime/cuda/src/main/cuda/build-ptx.sh runtime/cuda/src/main/resources/ptx";

  @Test
  void everyCommittedPtxWasBuiltFromTheCurrentTextOfItsSource() throws IOException {
    List<Path> ptxFiles = committedPtx();
    assertThat(ptxFiles).as("PTX files in " + COMMITTED).isNotEmpty();
    for (Path ptx : ptxFiles) {
      Path record = Path.of(ptx + ".sources");
      assertThat(record).as("source record of " + ptx.getFileName()).exists();
      String[] source = fields(record).get("source").split(" ");
      Path cu = SOURCES.resolve(source[0]);

      assertThat(cu).as("source of " + ptx.getFileName()).exists();
      assertThat(source[1])
          .as(ptx.getFileName() + " is stale: " + cu + " changed since it was compiled" + REFRESH)
          .isEqualTo(sha256(cu));
      List<String> includedHeaders = includedHeaders(cu);
      assertThat(recordedHeaders(record).keySet())
          .as("headers recorded for " + ptx.getFileName() + REFRESH)
          .containsExactlyInAnyOrderElementsOf(includedHeaders);
      for (String header : includedHeaders) {
        assertThat(recordedHeaders(record).get(header))
            .as(
                ptx.getFileName()
                    + " is stale: "
                    + header
                    + " changed since it was compiled"
                    + REFRESH)
            .isEqualTo(sha256(SOURCES.resolve(header)));
      }
    }
  }

  @Test
  void everyCudaSourceHasPtx() throws IOException {
    for (Path source : cudaSources()) {
      String name = source.getFileName().toString().replaceFirst("\\.cu$", "");
      assertThat(COMMITTED.resolve(name + ".ptx")).as("PTX of " + source + REFRESH).exists();
    }
  }

  @Test
  void committedPtxEqualsWhatNvccBuildsNow() throws IOException {
    assumeTrue(
        Files.isDirectory(FRESH),
        "nvcc is not installed here, so the build made no fresh PTX (assumption)");
    for (Path ptx : committedPtx()) {
      Path fresh = FRESH.resolve(ptx.getFileName());
      Map<String, String> committedRecord = fields(Path.of(ptx + ".sources"));
      Map<String, String> freshRecord = fields(Path.of(fresh + ".sources"));
      assumeTrue(
          committedRecord.get("compiler").equals(freshRecord.get("compiler")),
          "this nvcc differs from the one that built the committed PTX (assumption)");

      assertThat(committedRecord.get("flags")).isEqualTo(freshRecord.get("flags"));
      assertThat(withoutComments(ptx))
          .as(ptx.getFileName() + " differs from a fresh nvcc build" + REFRESH)
          .isEqualTo(withoutComments(fresh));
    }
  }

  @Test
  void ptxTargetsHopperWithAnIsaTheCuda13DriverLoads() throws IOException {
    for (Path ptx : committedPtx()) {
      List<String> lines = Files.readAllLines(ptx);

      assertThat(lines).contains(".target sm_90", ".address_size 64");
      assertThat(lines)
          .filteredOn(line -> line.startsWith(".version "))
          .singleElement()
          .satisfies(
              line -> {
                double isa = Double.parseDouble(line.substring(".version ".length()).trim());
                assertThat(isa).as("PTX ISA version").isBetween(8.0, 9.0);
              });
    }
  }

  private static List<Path> committedPtx() throws IOException {
    try (Stream<Path> files = Files.list(COMMITTED)) {
      return files.filter(p -> p.toString().endsWith(".ptx")).sorted().toList();
    }
  }

  private static List<Path> cudaSources() throws IOException {
    try (Stream<Path> files = Files.list(SOURCES)) {
      List<Path> sources = files.filter(p -> p.toString().endsWith(".cu")).sorted().toList();
      assertThat(sources).as("CUDA sources in " + SOURCES).isNotEmpty();
      return sources;
    }
  }

  private static Map<String, String> fields(Path record) throws IOException {
    Map<String, String> fields = new TreeMap<>();
    for (String line : Files.readAllLines(record)) {
      if (!line.isBlank() && !line.startsWith("#")) {
        int space = line.indexOf(' ');
        fields.put(line.substring(0, space), line.substring(space + 1).trim());
      }
    }
    return fields;
  }

  /** The headers of this folder that a CUDA source includes ({@code #include "name"}). */
  private static List<String> includedHeaders(Path source) throws IOException {
    return Files.readAllLines(source).stream()
        .filter(line -> line.startsWith("#include \""))
        .map(line -> line.substring("#include \"".length(), line.lastIndexOf('"')))
        .toList();
  }

  /** Header name to SHA-256, from the record's {@code include NAME SHA} lines. */
  private static Map<String, String> recordedHeaders(Path record) throws IOException {
    Map<String, String> headers = new TreeMap<>();
    for (String line : Files.readAllLines(record)) {
      if (line.startsWith("include ")) {
        String[] words = line.split(" ");
        headers.put(words[1], words[2]);
      }
    }
    return headers;
  }

  private static List<String> withoutComments(Path ptx) throws IOException {
    return Files.readAllLines(ptx).stream().filter(line -> !line.startsWith("//")).toList();
  }

  private static String sha256(Path file) throws IOException {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
