package dev.gpucomm.operator.image;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Command line of the operator image build ({@code ./mvnw -pl operator -am package -Poci}): checks
 * its inputs, builds the image and prints where the tarball is.
 */
public final class OperatorImageBuild {

  private static final List<String> OPTIONS =
      List.of(
          "--quarkus-app",
          "--java-runtime",
          "--properties",
          "--image",
          "--version",
          "--source",
          "--licenses",
          "--output",
          "--work-dir");

  // the same JVM options Quarkus' own Jib build puts into the entrypoint, so both images run alike
  private static final String JVM_OPTIONS_PROPERTY = "quarkus.jib.jvm-additional-arguments";

  private OperatorImageBuild() {}

  public static void main(String[] args) throws Exception {
    OperatorImageSpec spec;
    Path workDir;
    try {
      Map<String, String> options = parse(args);
      spec = spec(options);
      workDir = Path.of(options.get("--work-dir"));
    } catch (UsageException e) {
      System.err.println("operator image: " + e.getMessage());
      System.exit(2);
      return;
    }
    var container = new OperatorImageBuilder(spec, workDir).build();
    System.out.println(
        "operator image: "
            + spec.output()
            + " ("
            + spec.imageReference()
            + ", "
            + container.getDigest()
            + ")");
  }

  static Map<String, String> parse(String[] args) throws UsageException {
    var options = new HashMap<String, String>();
    for (int i = 0; i < args.length; i += 2) {
      if (!OPTIONS.contains(args[i])) {
        throw new UsageException(args[i] + ": unknown option; expected one of " + OPTIONS);
      }
      if (i + 1 >= args.length || args[i + 1].isBlank()) {
        throw new UsageException(args[i] + ": needs a value");
      }
      options.put(args[i], args[i + 1]);
    }
    for (String option : OPTIONS) {
      if (!options.containsKey(option)) {
        throw new UsageException(option + ": missing");
      }
    }
    return options;
  }

  static OperatorImageSpec spec(Map<String, String> options) throws UsageException {
    Path quarkusApp = Path.of(options.get("--quarkus-app"));
    if (!Files.isRegularFile(quarkusApp.resolve("quarkus-run.jar"))) {
      throw new UsageException(
          "--quarkus-app: no quarkus-run.jar in " + quarkusApp + " (build the operator first)");
    }
    Path javaRuntime = Path.of(options.get("--java-runtime"));
    if (!Files.isExecutable(javaRuntime.resolve("bin/java"))) {
      throw new UsageException("--java-runtime: no bin/java in " + javaRuntime);
    }
    return new OperatorImageSpec(
        quarkusApp,
        javaRuntime,
        options.get("--image"),
        options.get("--version"),
        options.get("--source"),
        options.get("--licenses"),
        jvmOptions(Path.of(options.get("--properties"))),
        Path.of(options.get("--output")));
  }

  private static List<String> jvmOptions(Path applicationProperties) throws UsageException {
    var properties = new Properties();
    try (Reader reader = Files.newBufferedReader(applicationProperties, StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new UsageException("--properties: cannot read " + applicationProperties);
    }
    String value = properties.getProperty(JVM_OPTIONS_PROPERTY, "").strip();
    if (value.isEmpty()) {
      return List.of();
    }
    return Arrays.stream(value.split(",")).map(String::strip).toList();
  }

  /** A bad command line: reported in one line, exit code 2. */
  static final class UsageException extends Exception {
    UsageException(String message) {
      super(message);
    }
  }
}
