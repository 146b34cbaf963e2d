package dev.gpucomm.operator.image;

import com.google.cloud.tools.jib.api.Containerizer;
import com.google.cloud.tools.jib.api.Jib;
import com.google.cloud.tools.jib.api.JibContainer;
import com.google.cloud.tools.jib.api.TarImage;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.FilePermissions;
import com.google.cloud.tools.jib.api.buildplan.ImageFormat;
import com.google.cloud.tools.jib.api.buildplan.Platform;
import com.google.cloud.tools.jib.api.buildplan.Port;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Builds the operator's image from scratch with jib-core and writes it as an OCI tarball, with no
 * container engine and no registry: every layer comes from the build's own files.
 *
 * <p>Layers, from the least to the most often changed: the C library the runtime links against and
 * the image's /etc/passwd, the jlinked Java runtime, the application's dependencies, the
 * application itself.
 */
public final class OperatorImageBuilder {

  private static final String USER_NAME = "gpucomm";

  private final OperatorImageSpec spec;
  private final Path workDir;

  /**
   * @param spec what goes into the image
   * @param workDir scratch space for generated files and jib's layer cache
   */
  public OperatorImageBuilder(OperatorImageSpec spec, Path workDir) {
    this.spec = spec;
    this.workDir = workDir;
  }

  /** Writes the tarball and returns what jib built (its digest and image id). */
  public JibContainer build() throws Exception {
    Files.createDirectories(workDir);
    Files.createDirectories(spec.output().toAbsolutePath().getParent());
    var builder =
        Jib.fromScratch()
            .setFormat(ImageFormat.OCI)
            .setPlatforms(Set.of(new Platform(architecture(), "linux")))
            .addFileEntriesLayer(systemLayer())
            .addFileEntriesLayer(javaRuntimeLayer())
            .addFileEntriesLayer(dependenciesLayer())
            .addFileEntriesLayer(applicationLayer())
            .setEnvironment(environment())
            .setEntrypoint(spec.entrypoint())
            .setUser(OperatorImageSpec.USER_ID + ":" + OperatorImageSpec.USER_ID)
            .setWorkingDirectory(AbsoluteUnixPath.get(OperatorImageSpec.APP_HOME))
            .setExposedPorts(Set.of(Port.tcp(8080)))
            .setLabels(labels());
    var containerizer =
        Containerizer.to(TarImage.at(spec.output()).named(spec.imageReference()))
            .setOfflineMode(true)
            .setToolName("gpucomm-operator-image")
            .setBaseImageLayersCache(workDir.resolve("jib-cache/base"))
            .setApplicationLayersCache(workDir.resolve("jib-cache/application"));
    return builder.containerize(containerizer);
  }

  private FileEntriesLayer systemLayer() throws IOException, InterruptedException {
    var layer = FileEntriesLayer.builder().setName("system");
    for (Path library : new HostLibraries(spec.javaRuntime()).needed()) {
      // the content of the real file, at the path the binaries were linked to find it under
      layer.addEntry(
          library.toRealPath(),
          AbsoluteUnixPath.get(library.toString()),
          FilePermissions.fromOctalString("755"));
    }
    Path etc = workDir.resolve("etc");
    Files.createDirectories(etc);
    int uid = OperatorImageSpec.USER_ID;
    Files.writeString(
        etc.resolve("passwd"),
        "root:x:0:0:root:/root:/sbin/nologin\n"
            + USER_NAME
            + ":x:"
            + uid
            + ":"
            + uid
            + "::"
            + OperatorImageSpec.APP_HOME
            + ":/sbin/nologin\n",
        StandardCharsets.UTF_8);
    Files.writeString(
        etc.resolve("group"),
        "root:x:0:\n" + USER_NAME + ":x:" + uid + ":\n",
        StandardCharsets.UTF_8);
    layer.addEntry(etc.resolve("passwd"), AbsoluteUnixPath.get("/etc/passwd"));
    layer.addEntry(etc.resolve("group"), AbsoluteUnixPath.get("/etc/group"));
    // Quarkus and Vert.x write caches under java.io.tmpdir; the chart mounts an emptyDir over it,
    // a plain docker run gets this one. Jib takes three octal digits only, so no sticky bit.
    Path tmp = workDir.resolve("tmp");
    Files.createDirectories(tmp);
    layer.addEntry(tmp, AbsoluteUnixPath.get("/tmp"), FilePermissions.fromOctalString("777"));
    return layer.build();
  }

  private FileEntriesLayer javaRuntimeLayer() throws IOException {
    return FileEntriesLayer.builder()
        .setName("java-runtime")
        .addEntryRecursive(
            spec.javaRuntime(),
            AbsoluteUnixPath.get(OperatorImageSpec.JAVA_HOME),
            OperatorImageBuilder::sourcePermissions)
        .build();
  }

  private FileEntriesLayer dependenciesLayer() throws IOException {
    return FileEntriesLayer.builder()
        .setName("dependencies")
        .addEntryRecursive(
            spec.quarkusApp().resolve("lib"),
            AbsoluteUnixPath.get(OperatorImageSpec.APP_HOME + "/lib"))
        .build();
  }

  private FileEntriesLayer applicationLayer() throws IOException {
    var layer = FileEntriesLayer.builder().setName("application");
    for (String part : new String[] {"quarkus-run.jar", "app", "quarkus"}) {
      layer.addEntryRecursive(
          spec.quarkusApp().resolve(part),
          AbsoluteUnixPath.get(OperatorImageSpec.APP_HOME + "/" + part));
    }
    return layer.build();
  }

  private Map<String, String> environment() {
    var environment = new LinkedHashMap<String, String>();
    environment.put("JAVA_HOME", OperatorImageSpec.JAVA_HOME);
    environment.put("PATH", OperatorImageSpec.JAVA_HOME + "/bin:/usr/bin:/bin");
    environment.put("LANG", "C.UTF-8");
    return environment;
  }

  private Map<String, String> labels() {
    var labels = new LinkedHashMap<String, String>();
    labels.put("org.opencontainers.image.title", "gpucomm-operator");
    labels.put(
        "org.opencontainers.image.description",
        "The gpucomm operator: runs CommJobs as pods and reports their results in their status.");
    labels.put("org.opencontainers.image.source", spec.sourceUrl());
    labels.put("org.opencontainers.image.version", spec.version());
    labels.put("org.opencontainers.image.licenses", spec.licenses());
    return labels;
  }

  // the runtime's launcher and libraries must stay executable: keep the mode they have here
  private static FilePermissions sourcePermissions(Path source, AbsoluteUnixPath target) {
    try {
      return FilePermissions.fromPosixFilePermissions(Files.getPosixFilePermissions(source));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String architecture() {
    String arch = System.getProperty("os.arch");
    return switch (arch) {
      case "amd64", "x86_64" -> "amd64";
      case "aarch64", "arm64" -> "arm64";
      default -> throw new IllegalStateException("no OCI architecture name for os.arch " + arch);
    };
  }
}
