package dev.gpucomm.runtime.launch;

import dev.gpucomm.runtime.UsageException;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Refuses JVM options after which the JVM prints something and exits 0, or runs another program,
 * instead of the gpucomm main class. In a rank's options the rank would start nothing; in the
 * bundle launcher's, the command itself would "succeed" having run nothing (a pod Succeeded, no
 * rank run). The bundle's launcher script refuses the same list: a test holds the two together.
 */
public final class JvmOptionsCheck {
  /** The variables whose options reach every gpucomm JVM: ours, and the JDK's own two. */
  public static final List<String> VARIABLES =
      List.of(JavaCommand.JAVA_OPTS_ENV, "JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS");

  /**
   * Options (whole, or their part before '=') that end the JVM, or start another program, before
   * main.
   */
  public static final Set<String> ENDS_THE_LAUNCH =
      Set.of(
          "-version",
          "--version",
          "-fullversion",
          "--full-version",
          "-help",
          "--help",
          "-h",
          "-?",
          "-X",
          "--help-extra",
          "--dry-run",
          "--list-modules",
          "-d",
          "--describe-module",
          "--validate-modules",
          "-jar",
          "-m",
          "--module",
          "-Xinternalversion",
          "-Xshare:dump",
          "-Xlog:help",
          "-XX:+PrintFlagsInitial",
          "-XX:+PrintFlagsRanges",
          "-XX:+PrintSharedArchiveAndExit",
          // the source launcher runs a file instead; an AOT cache's creation exits when done
          "--source",
          "-XX:AOTMode=create");

  private JvmOptionsCheck() {}

  /** Throws a usage error naming the variable and option when any of {@link #VARIABLES} has one. */
  public static void requireRunnable(Map<String, String> env) {
    for (String variable : VARIABLES) {
      String options = env.getOrDefault(variable, "").strip();
      if (options.isEmpty()) {
        continue;
      }
      for (String option : options.split("\\s+")) {
        if (readsMoreOptions(option)) {
          throw new UsageException(
              variable
                  + ": "
                  + option
                  + " reads options from a file, unchecked; give the options themselves");
        }
        if (ENDS_THE_LAUNCH.contains(option) || ENDS_THE_LAUNCH.contains(option.split("=", 2)[0])) {
          throw new UsageException(
              variable
                  + ": "
                  + option
                  + " would start no gpucomm rank (the JVM would print or run something else);"
                  + " give JVM options only, e.g. -Xmx4g");
        }
      }
    }
  }

  /** An option that brings in options from a file, which could hold any of the others unseen. */
  private static boolean readsMoreOptions(String option) {
    return option.startsWith("@")
        || option.startsWith("-XX:Flags=")
        || option.startsWith("-XX:VMOptionsFile=");
  }
}
