package dev.gpucomm.e2e.sim;

import io.fabric8.kubernetes.api.model.Container;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a simulated node runs for a container: the image's {@code gpucomm} entrypoint becomes the
 * runtime's CLI on this machine's JVM, with the runtime classpath the build resolved.
 */
record ContainerCommand(Path java, String runtimeClasspath, String cliMainClass) {
  /** The executable name the runtime image puts on its PATH (and uses as its entrypoint). */
  static final String GPUCOMM = "gpucomm";

  List<String> commandLine(Container container) {
    List<String> words = new ArrayList<>();
    if (container.getCommand() != null) {
      words.addAll(container.getCommand());
    }
    if (container.getArgs() != null) {
      words.addAll(container.getArgs());
    }
    if (container.getCommand() == null || container.getCommand().isEmpty()) {
      words.addFirst(GPUCOMM); // the image's entrypoint
    }
    String executable = words.getFirst();
    if (!executable.equals(GPUCOMM) && !executable.endsWith("/" + GPUCOMM)) {
      throw new IllegalArgumentException(
          "container "
              + container.getName()
              + " runs "
              + executable
              + ": the simulated node runs only the gpucomm runtime");
    }
    List<String> line = new ArrayList<>();
    line.add(java.toString());
    line.add("--enable-native-access=ALL-UNNAMED");
    // Keep each container's launcher JVM small and quick to start: the node has few cores.
    line.add("-XX:+UseSerialGC");
    line.add("-XX:TieredStopAtLevel=1");
    line.add("-cp");
    line.add(runtimeClasspath);
    line.add(cliMainClass);
    line.addAll(words.subList(1, words.size()));
    return line;
  }
}
