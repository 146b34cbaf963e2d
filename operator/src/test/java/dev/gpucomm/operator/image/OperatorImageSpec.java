package dev.gpucomm.operator.image;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What goes into the operator's OCI image: the Quarkus application, the Java runtime it runs on,
 * the image's name and labels, and where the tarball is written.
 *
 * @param quarkusApp the Quarkus fast-jar directory (quarkus-run.jar, lib/, app/, quarkus/)
 * @param javaRuntime a jlinked Java runtime (bin/java, lib/)
 * @param imageReference the name the tarball carries (registry/repository:tag)
 * @param version the operator's version, for the version label
 * @param sourceUrl where the source lives, for the source label
 * @param licenses the SPDX license expression, for the licenses label
 * @param jvmOptions options put before -jar in the entrypoint
 * @param output the OCI tarball to write
 */
public record OperatorImageSpec(
    Path quarkusApp,
    Path javaRuntime,
    String imageReference,
    String version,
    String sourceUrl,
    String licenses,
    List<String> jvmOptions,
    Path output) {

  /** Where the image keeps the Java runtime. */
  public static final String JAVA_HOME = "/opt/java";

  /** Where the image keeps the Quarkus application, and its working directory. */
  public static final String APP_HOME = "/deployments";

  /** The numeric non-root user the operator runs as (the chart sets runAsNonRoot). */
  public static final int USER_ID = 185;

  public OperatorImageSpec {
    jvmOptions = List.copyOf(jvmOptions);
  }

  /** The container's entrypoint: the runtime's java running the fast-jar. */
  public List<String> entrypoint() {
    var command = new ArrayList<String>();
    command.add(JAVA_HOME + "/bin/java");
    command.addAll(jvmOptions);
    command.add("-jar");
    command.add(APP_HOME + "/quarkus-run.jar");
    return List.copyOf(command);
  }
}
