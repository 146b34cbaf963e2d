package dev.gpucomm.runtime.launch;

import dev.gpucomm.runtime.numeric.VectorUnits;
import java.lang.module.ModuleFinder;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

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

  /** JVM options under which C2 never compiles: interpreted only, or tiers stopped below C2. */
  private static final Pattern WITHOUT_C2 =
      Pattern.compile("(^|\\s)(-Xint|-XX:TieredStopAtLevel=[0-3])(\\s|$)");

  /** A JVM option that selects a garbage collector (-XX:+UseG1GC, -XX:+UseParallelGC, ...). */
  private static final Pattern CHOOSES_A_COLLECTOR =
      Pattern.compile("(^|\\s)-XX:\\+Use[A-Za-z]*GC(\\s|$)");

  /** Extra JVM options of the launcher script, which its ranks get too. */
  public static final String JAVA_OPTS_ENV = "GPUCOMM_JAVA_OPTS";

  /** The java and class path of the running JVM. */
  public static JavaCommand ofCurrentJvm() {
    return ofCurrentJvm(System.getenv());
  }

  /**
   * The java and class path of the running JVM, with the options of {@value #JAVA_OPTS_ENV} in
   * {@code env} last (so that, say, -Xmx16g sizes the ranks' heaps as it sizes the launcher's).
   */
  public static JavaCommand ofCurrentJvm(Map<String, String> env) {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> options = new ArrayList<>();
    options.add("--enable-native-access=ALL-UNNAMED");
    String extra = env.getOrDefault(JAVA_OPTS_ENV, "").strip();
    JvmOptionsCheck.requireRunnable(env);
    // Ranks are short-lived and many share a host: a small, quickly started heap is enough for
    // the host side (device memory is off-heap). A collector the user chose wins: the JVM refuses
    // to start with two.
    if (!CHOOSES_A_COLLECTOR.matcher(extra).find()) {
      options.add("-XX:+UseSerialGC");
    }
    // The CPU backend's reductions run several times faster on the Vector API (VectorUnits);
    // a runtime image without the module runs them on the auto-vectorized path instead, and so
    // does a JVM told not to use C2, in which Vector API code is interpreted and far slower.
    if (!"off".equals(env.get(VectorUnits.SWITCH))
        && !WITHOUT_C2.matcher(extra).find()
        && ModuleFinder.ofSystem().find(VectorUnits.MODULE).isPresent()) {
      options.add("--add-modules=" + VectorUnits.MODULE);
    }
    if (!extra.isEmpty()) {
      options.addAll(List.of(extra.split("\\s+")));
    }
    return new JavaCommand(java, System.getProperty("java.class.path"), options, MAIN_CLASS);
  }

  /** The same JVM running another main class (tests start stand-in ranks this way). */
  public JavaCommand withMainClass(String otherMainClass) {
    return new JavaCommand(javaExecutable, classPath, jvmOptions, otherMainClass);
  }

  /**
   * The same JVM writing its standard output in {@code out} and its standard error in {@code err}
   * whatever the locale says: what it prints is copied, byte for byte, into streams of those
   * charsets.
   */
  public JavaCommand writingIn(Charset out, Charset err) {
    List<String> options = new ArrayList<>(jvmOptions);
    options.add("-Dstdout.encoding=" + out.name());
    options.add("-Dstderr.encoding=" + err.name());
    return new JavaCommand(javaExecutable, classPath, options, mainClass);
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
