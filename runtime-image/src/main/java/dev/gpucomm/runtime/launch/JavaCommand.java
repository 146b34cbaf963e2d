package dev.gpucomm.runtime.launch;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line that starts a child JVM running the gpucomm CLI: the same java executable and
 * class path as this JVM, with native access enabled (JCuda and the FFM API need it).
 */
public record JavaCommand(
    Path javaExecutable, String classPath, List<String> jvmOptions, String mainClass) {
  public static final String MAIN_CLASS = "dev.gpucomm.runtime.cli.Gpucomm";

  public JavaCommand {
    jvmOptions = List.copyOf(jvmOptions);
  }

  /** The java and class path of the running JVM. */
  public static JavaCommand ofCurrentJvm() {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    return new JavaCommand(
        java,
        System.getProperty("java.class.path"),
        List.of(
            "--enable-native-access=ALL-UNNAMED",
            // Ranks are short-lived and many share a host: a small, quickly started heap is enough
            // for the host side (device memory is off-heap).
            "-XX:+UseSerialGC"),
        MAIN_CLASS);
  }

  /** The same JVM running another main class (tests start stand-in ranks this way). */
  public JavaCommand withMainClass(String otherMainClass) {
    return new JavaCommand(javaExecutable, classPath, jvmOptions, otherMainClass);
  }

  /** {@code java <options> -cp <classpath> <main> <arguments>}. */
  public List<String> command(List<String> arguments) {
    List<String> command = new ArrayList<>();
    command.add(javaExecutable.toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classPath);
    command.add(mainClass);
    command.addAll(arguments);
    return command;
  }
}
