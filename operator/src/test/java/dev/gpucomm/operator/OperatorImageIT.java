package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gpucomm.operator.image.OciImageArchive;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator's OCI image ({@code -Poci}, target/gpucomm-operator-oci.tar) opened as a container
 * runtime opens it: its config says what runs and as whom, its layers hold the runtime and the
 * application, and the operator started from its file system alone, as uid 185, reconciles a
 * CommJob against a mock API server.
 */
class OperatorImageIT {
  private static final Path WORK = Path.of("target", "operator-image-it");
  private static final Path LOG = WORK.resolve("operator.log");

  private static OciImageArchive image;

  @BeforeAll
  static void openImage() throws Exception {
    String tarball = System.getProperty("gpucomm.oci.tarball", "");
    assumeTrue(
        !tarball.isBlank() && Files.isRegularFile(Path.of(tarball)),
        "no operator image: build it with -Poci");
    deleteRecursively(WORK);
    image = OciImageArchive.open(Path.of(tarball), WORK.resolve("layout"));
  }

  @Test
  void theTarballIsAnOciLayoutNamingOneImage() throws IOException {
    assertThat(image.ociLayout()).contains("\"imageLayoutVersion\"");
    assertThat(image.manifest().path("mediaType").asText())
        .isEqualTo("application/vnd.oci.image.manifest.v1+json");
    assertThat(image.manifest().path("config").path("mediaType").asText())
        .isEqualTo("application/vnd.oci.image.config.v1+json");
    String expectedName = System.getProperty("gpucomm.oci.image");
    JsonNode annotations = image.index().path("manifests").get(0).path("annotations");
    assertThat(annotations.toString()).contains(tagOf(expectedName));
  }

  @Test
  void theImageRunsTheFastJarOnItsOwnJavaAsANonRootUser() throws IOException {
    JsonNode config = image.config().path("config");
    List<String> entrypoint = strings(config.path("Entrypoint"));
    assertThat(entrypoint.getFirst()).isEqualTo("/opt/java/bin/java");
    assertThat(entrypoint.subList(entrypoint.size() - 2, entrypoint.size()))
        .containsExactly("-jar", "/deployments/quarkus-run.jar");
    assertThat(entrypoint)
        .as("the JVM options of application.properties")
        .containsAll(jvmOptionsOfApplicationProperties());
    assertThat(config.path("WorkingDir").asText()).isEqualTo("/deployments");

    String user = config.path("User").asText();
    assertThat(user)
        .as("a numeric uid:gid, so that runAsNonRoot can check it")
        .matches("\\d+:\\d+");
    assertThat(Integer.parseInt(user.split(":")[0])).as("uid").isNotZero();

    assertThat(image.config().path("os").asText()).isEqualTo("linux");
    assertThat(image.config().path("architecture").asText()).isIn("amd64", "arm64");
  }

  @Test
  void theImageCarriesTheOciLabels() {
    JsonNode labels = image.config().path("config").path("Labels");
    assertThat(labels.path("org.opencontainers.image.title").asText())
        .isEqualTo("gpucomm-operator");
    assertThat(labels.path("org.opencontainers.image.source").asText()).startsWith("https://");
    assertThat(labels.path("org.opencontainers.image.version").asText()).isNotBlank();
    assertThat(labels.path("org.opencontainers.image.licenses").asText()).isNotBlank();
  }

  @Test
  void theLayersHoldTheCLibraryTheJavaRuntimeAndTheApplicationApart() throws IOException {
    List<String> digests = image.layerDigests();
    assertThat(digests).hasSize(4);
    Map<String, Integer> system = image.layerEntries(digests.get(0));
    Map<String, Integer> javaRuntime = image.layerEntries(digests.get(1));
    Map<String, Integer> dependencies = image.layerEntries(digests.get(2));
    Map<String, Integer> application = image.layerEntries(digests.get(3));

    assertThat(system.keySet()).anyMatch(path -> path.endsWith("/libc.so.6"));
    assertThat(system).containsKeys("etc/passwd", "etc/group", "tmp");
    assertThat(javaRuntime).containsKey("opt/java/bin/java");
    assertThat(javaRuntime.get("opt/java/bin/java") & 0111).as("java is executable").isNotZero();
    assertThat(javaRuntime).containsKey("opt/java/lib/modules");
    assertThat(dependencies.keySet()).anyMatch(path -> path.startsWith("deployments/lib/main/"));
    assertThat(application).containsKey("deployments/quarkus-run.jar");
    assertThat(application.keySet()).noneMatch(path -> path.startsWith("deployments/lib/"));
  }

  @Test
  void theOperatorStartedFromTheImageAloneReconcilesACommJob() throws Exception {
    Path root = WORK.resolve("rootfs").toAbsolutePath();
    image.extractRootFilesystem(root);
    JsonNode config = image.config().path("config");

    try (StandaloneApiServer apiServer = StandaloneApiServer.start()) {
      int httpPort = freePort();
      Map<String, String> environment = environment(config.path("Env"));
      environment.put("QUARKUS_KUBERNETES_CLIENT_API_SERVER_URL", apiServer.url());
      environment.put("QUARKUS_KUBERNETES_CLIENT_NAMESPACE", "test");
      environment.put("QUARKUS_HTTP_PORT", Integer.toString(httpPort));
      environment.put("GPUCOMM_OPERATOR_LEADER_ELECTION_ENABLED", "false");
      // outside a container the JVM sees the host's memory; this stands for the chart's limit
      environment.put("JAVA_TOOL_OPTIONS", OperatorJvm.CHART_MEMORY_LIMIT);
      ProcessBuilder builder =
          new ProcessBuilder(
              containerCommand(root, strings(config.path("Entrypoint")), environment));
      builder.redirectErrorStream(true);
      builder.redirectOutput(ProcessBuilder.Redirect.to(LOG.toFile()));
      Process operator = builder.start();
      try {
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(250))
            .until(
                () -> {
                  if (!operator.isAlive()) {
                    throw new IllegalStateException(
                        "the operator exited with " + operator.exitValue() + "; see " + LOG);
                  }
                  return ready(httpPort);
                });

        TestCluster cluster = new TestCluster(apiServer.client);
        cluster.apply(
            """
            metadata: {name: imaged}
            spec:
              worldSize: 2
              device: cpu
              workload:
                kind: benchmark
                benchmark: {tokens: [32]}
            """);
        cluster.awaitPods("imaged", "imaged-0", "imaged-1");
      } finally {
        // unshare ignores SIGTERM while it waits for its child: stop the operator itself, as a
        // container runtime stops the entrypoint
        operator.descendants().forEach(ProcessHandle::destroy);
        if (!operator.waitFor(30, TimeUnit.SECONDS)) {
          operator.descendants().forEach(ProcessHandle::destroyForcibly);
          operator.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
      }
    }
    assertThat(Files.readString(LOG, StandardCharsets.UTF_8))
        .as("the image's runtime has every module the operator loads")
        .doesNotContain("NoClassDefFoundError")
        .doesNotContain("ClassNotFoundException")
        .as("the operator stops cleanly on SIGTERM, as its pod is stopped")
        .contains("stopped in");
  }

  /**
   * The command that runs the image's entrypoint as a container runtime would: in mount and PID
   * namespaces of its own, with /proc and /dev mounted, the image's file system as its root and,
   * where this test runs as root (as CI does), as the image's own user; as a mapped root in a user
   * namespace otherwise, and skipped where neither is allowed. The entrypoint gets {@code
   * environment} and nothing of this process's.
   */
  private static List<String> containerCommand(
      Path root, List<String> entrypoint, Map<String, String> environment) throws Exception {
    Files.createDirectories(root.resolve("proc"));
    Files.createDirectories(root.resolve("dev"));
    String user = image.config().path("config").path("User").asText();
    var command = new ArrayList<String>();
    command.add("unshare");
    boolean asRoot = runsAsRoot();
    if (!asRoot) {
      assumeTrue(userNamespacesAllowed(), "a container needs root or unprivileged user namespaces");
      command.add("--map-root-user");
    }
    command.addAll(
        List.of(
            "--mount",
            "--pid",
            "--fork",
            "--kill-child=SIGTERM",
            "--mount-proc=" + root.resolve("proc")));
    command.addAll(List.of("sh", "-c", "mount --rbind /dev \"$0/dev\" && exec \"$@\""));
    command.add(root.toString());
    command.addAll(List.of("env", "-i"));
    environment.forEach((name, value) -> command.add(name + "=" + value));
    command.add(hostProgram("chroot"));
    if (asRoot) {
      command.add("--userspec=" + user);
    }
    command.add(root.toString());
    command.addAll(entrypoint);
    return command;
  }

  // chroot lives in sbin, which env -i's search path may lack
  private static String hostProgram(String name) {
    var directories = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
    directories.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
    return directories.stream()
        .filter(directory -> !directory.isEmpty())
        .map(directory -> Path.of(directory, name))
        .filter(Files::isExecutable)
        .findFirst()
        .map(Path::toString)
        .orElseThrow(() -> new IllegalStateException(name + " is not installed"));
  }

  private static boolean runsAsRoot() throws IOException {
    Path probe = Files.createTempFile("operator-image-it", ".uid");
    try {
      return (Integer) Files.getAttribute(probe, "unix:uid") == 0;
    } finally {
      Files.delete(probe);
    }
  }

  private static boolean userNamespacesAllowed() throws IOException, InterruptedException {
    Process probe =
        new ProcessBuilder("unshare", "--map-root-user", "true").redirectErrorStream(true).start();
    probe.getInputStream().readAllBytes();
    return probe.waitFor(10, TimeUnit.SECONDS) && probe.exitValue() == 0;
  }

  private static boolean ready(int httpPort) {
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create("http://localhost:" + httpPort + "/q/health/ready"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static List<String> jvmOptionsOfApplicationProperties() throws IOException {
    var properties = new Properties();
    try (var reader =
        Files.newBufferedReader(Path.of("src/main/resources/application.properties"))) {
      properties.load(reader);
    }
    return List.of(properties.getProperty("quarkus.jib.jvm-additional-arguments").split(","));
  }

  private static Map<String, String> environment(JsonNode env) {
    var environment = new LinkedHashMap<String, String>();
    for (String entry : strings(env)) {
      int equals = entry.indexOf('=');
      environment.put(entry.substring(0, equals), entry.substring(equals + 1));
    }
    return environment;
  }

  private static List<String> strings(JsonNode array) {
    var strings = new ArrayList<String>();
    array.forEach(element -> strings.add(element.asText()));
    return strings;
  }

  private static String tagOf(String imageName) {
    return imageName.substring(imageName.lastIndexOf(':') + 1);
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
