package dev.gpucomm.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * app/Dockerfile, checked without a container engine: a CUDA 13 runtime base with NCCL, a non-root
 * user, entrypoint gpucomm, and only files that the build produces copied in.
 */
class RuntimeImageDockerfileTest {
  private static final String BUNDLE = "target/gpucomm-bundle.tar.xz";

  private final Path context = Path.of(System.getProperty("runtimeImage"));
  private final List<Instruction> instructions = parse(context.resolve("Dockerfile"));

  /** One Dockerfile instruction, continuation lines joined. */
  record Instruction(String keyword, String arguments) {}

  @Test
  void itBuildsOnACuda13RuntimeImageWithNccl() {
    assertThat(argument("CUDA_IMAGE"))
        .matches("nvidia/cuda:13\\.\\d+\\.\\d+-runtime-ubuntu\\d+\\.\\d+");
    assertThat(first("FROM").arguments()).isEqualTo("${CUDA_IMAGE}");
    assertThat(argument("NCCL_PACKAGE")).startsWith("libnccl2");
    assertThat(all("RUN"))
        .anyMatch(
            run -> run.arguments().contains("install -y --no-install-recommends ${NCCL_PACKAGE}"));
  }

  @Test
  void itInstallsTheRdmaUserSpaceThatNcclLoadsForInfinibandRoceAndEfa() {
    Instruction install =
        all("RUN").stream()
            .filter(run -> run.arguments().contains("${NCCL_PACKAGE}"))
            .findFirst()
            .orElseThrow();
    assertThat(install.arguments().split("\\s+"))
        .contains("rdma-core", "libibverbs1", "ibverbs-providers");
  }

  @Test
  void itRunsGpucommAsTheNonRootUserTheOperatorExpects() {
    assertThat(first("ENTRYPOINT").arguments()).isEqualTo("[\"gpucomm\"]");
    assertThat(first("CMD").arguments()).isEqualTo("[\"launch\"]");
    // uid 1000 is gpucomm.operator.run-as-user's default (runAsNonRoot needs a numeric user)
    assertThat(last("USER").arguments()).isEqualTo("1000:1000");
    assertThat(first("ENV").arguments()).contains("PATH=/opt/gpucomm/bin:");
  }

  @Test
  void itCopiesOnlyTheRuntimeBundle() {
    List<String> sources = new ArrayList<>();
    for (Instruction instruction : instructions) {
      if (instruction.keyword().equals("COPY") || instruction.keyword().equals("ADD")) {
        List<String> words = Arrays.asList(instruction.arguments().split("\\s+"));
        assertThat(words)
            .as("%s without --from", instruction)
            .noneMatch(w -> w.startsWith("--from"));
        sources.addAll(words.subList(0, words.size() - 1));
      }
    }
    assertThat(sources).containsExactly(BUNDLE);
  }

  /**
   * The bundle comes from the app module's build (its bundle profile: {@code ./mvnw -pl app -am
   * package -Pbundle}); when this build made one, its contents are checked too.
   */
  @Test
  void theBundleItCopiesIsWhatTheRuntimeImageBuildProduces() throws Exception {
    String pom = Files.readString(context.resolve("pom.xml"));
    assumeTrue(
        pom.contains("gpucomm-bundle.tar.xz"),
        "app/pom.xml does not build gpucomm-bundle.tar.xz on this branch yet");
    assertThat(pom).contains("${project.build.directory}/gpucomm-bundle.tar.xz");
    assertThat(context.resolve("src/main/bundle/bin/gpucomm"))
        .as("the launcher the bundle puts at gpucomm/bin/gpucomm")
        .isRegularFile();
    Path bundle = context.resolve(BUNDLE);
    if (Files.exists(bundle)) {
      List<String> entries =
          tar("-tJf", bundle.toString()).lines().map(l -> l.replaceFirst("^\\./", "")).toList();
      assertThat(entries)
          .contains("gpucomm/bin/gpucomm")
          .anyMatch(entry -> entry.startsWith("gpucomm/lib/") && entry.endsWith(".jar"))
          .anyMatch(entry -> entry.equals("gpucomm/jre/bin/java"));
    }
  }

  /**
   * The commands that build the image, in the Dockerfile's header and in the README, make the
   * bundle it adds first (without {@code -Pbundle} the ADD fails), and the bundle's jlink is the
   * build's own JDK rather than a path of one machine.
   */
  @Test
  void theDocumentedCommandsBuildTheBundleBeforeTheImageWithTheBuildsOwnJdk() throws IOException {
    String header =
        Files.readAllLines(context.resolve("Dockerfile")).stream()
            .takeWhile(line -> line.startsWith("#"))
            .reduce("", (text, line) -> text + line + "\n");
    String readme = Files.readString(context.resolve("../README.md"));
    for (String document : List.of(header, readme)) {
      int bundle = document.indexOf("-pl app -am package -Pbundle");
      assertThat(bundle).as("the bundle build in %.60s...", document).isNotNegative();
      assertThat(document.indexOf("docker build", bundle))
          .as("docker build after the bundle build")
          .isGreaterThan(bundle);
    }
    assertThat(Files.readString(context.resolve("pom.xml")))
        .contains("<bundle.jdk>${java.home}</bundle.jdk>");
  }

  private String argument(String name) {
    return all("ARG").stream()
        .map(Instruction::arguments)
        .filter(a -> a.startsWith(name + "="))
        .map(a -> a.substring(name.length() + 1))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no ARG " + name));
  }

  private List<Instruction> all(String keyword) {
    return instructions.stream().filter(i -> i.keyword().equals(keyword)).toList();
  }

  private Instruction first(String keyword) {
    return all(keyword).stream().findFirst().orElseThrow(() -> new AssertionError("no " + keyword));
  }

  private Instruction last(String keyword) {
    List<Instruction> found = all(keyword);
    assertThat(found).as(keyword).isNotEmpty();
    return found.get(found.size() - 1);
  }

  private static List<Instruction> parse(Path dockerfile) {
    List<String> lines;
    try {
      lines = Files.readAllLines(dockerfile);
    } catch (IOException e) {
      throw new AssertionError("cannot read " + dockerfile, e);
    }
    List<Instruction> instructions = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : lines) {
      String trimmed = line.strip();
      if (current.isEmpty() && (trimmed.isEmpty() || trimmed.startsWith("#"))) {
        continue;
      }
      if (trimmed.endsWith("\\")) {
        current.append(trimmed, 0, trimmed.length() - 1).append(' ');
        continue;
      }
      current.append(trimmed);
      String text = current.toString().strip();
      int space = text.indexOf(' ');
      instructions.add(
          new Instruction(
              text.substring(0, space).toUpperCase(), text.substring(space + 1).strip()));
      current.setLength(0);
    }
    return instructions;
  }

  private static String tar(String... arguments) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("tar"));
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    return output;
  }
}
