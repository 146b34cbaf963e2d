package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.launch.JvmOptionsCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundle's launcher script, run against a stand-in java that records its arguments: the
 * launcher's own JVM gets GPUCOMM_JAVA_OPTS, so an option that ends the JVM must be refused here.
 */
@EnabledOnOs(OS.LINUX)
class BundleLauncherTest {
  @TempDir Path bundle;
  private Path javaArguments;
  private Path javaQuestions;
  private Path javaLocale;

  @BeforeEach
  void aBundleWithAStandInJava() throws IOException {
    Files.createDirectories(bundle.resolve("bin"));
    Files.createDirectories(bundle.resolve("jre/bin"));
    for (String script : new String[] {"gpucomm", "jvm-options.sh"}) {
      Files.copy(Path.of("src/main/bundle/bin", script), bundle.resolve("bin").resolve(script));
    }
    javaArguments = bundle.resolve("java-arguments");
    javaQuestions = bundle.resolve("java-questions");
    javaLocale = bundle.resolve("java-locale");
    // answers the launcher's question (-version last) as the JDK does: an option it does not know
    // is three lines and exit 1; otherwise records the arguments of the launch itself
    Files.writeString(
        bundle.resolve("jre/bin/java"),
        """
        #!/usr/bin/env bash
        if [ "${@: -1}" = -version ]; then
          printf '%%s\\n' "$*" >> '%s'
          for option in "$@"; do
            if [ "$option" = -Xunknown ]; then
              echo "Unrecognized option: -Xunknown" >&2
              echo "Error: Could not create the Java Virtual Machine." >&2
              echo "Error: A fatal exception has occurred. Program will exit." >&2
              exit 1
            fi
          done
          exit 0
        fi
        printf '%%s\\n' "$@" > '%s'
        printf 'LC_ALL=%%s\\nLC_CTYPE=%%s\\n' "${LC_ALL:-}" "${LC_CTYPE:-}" > '%s'
        """
            .formatted(javaQuestions, javaArguments, javaLocale));
    for (String executable : new String[] {"bin/gpucomm", "jre/bin/java"}) {
      Files.setPosixFilePermissions(
          bundle.resolve(executable), PosixFilePermissions.fromString("rwxr-xr-x"));
    }
  }

  @Test
  void jvmOptionsReachTheLaunchersJvmBeforeTheClassPath() throws Exception {
    Run run = launch("-Xmx4g -Dgpucomm.x=1", "bench", "--device", "cpu");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(Files.readAllLines(javaArguments))
        .containsExactly(
            "--enable-native-access=ALL-UNNAMED",
            "-Xmx4g",
            "-Dgpucomm.x=1",
            "-cp",
            bundle.toRealPath() + "/lib/*",
            "dev.gpucomm.runtime.cli.Gpucomm",
            "bench",
            "--device",
            "cpu");
  }

  @Test
  void anOptionAfterWhichJavaRunsNothingOfOursIsAUsageErrorAndJavaNeverStarts() throws Exception {
    // a file that "-?" would match as a pattern, in the directory the launcher runs in
    Files.writeString(bundle.resolve("-a"), "");
    Map<String, String> offendingOfOptions =
        Map.of("-Xmx4g -version", "-version", "--help", "--help", "-?", "-?", "-jar x.jar", "-jar");

    for (var options : offendingOfOptions.entrySet()) {
      Run run = launch(options.getKey(), "bench");

      assertThat(run.exitCode()).as(options.getKey()).isEqualTo(2);
      assertThat(run.err())
          .isEqualTo(
              "gpucomm: GPUCOMM_JAVA_OPTS: "
                  + options.getValue()
                  + " would start no gpucomm rank (the JVM would print or run something else);"
                  + " give JVM options only, e.g. -Xmx4g\n");
      assertThat(javaArguments).doesNotExist();
    }
  }

  @Test
  void anOptionTheJvmDoesNotTakeIsAOneLineUsageErrorAndGpucommNeverStarts() throws Exception {
    Run run = launch("-Xmx4g -Xunknown", "bench", "--device", "cpu");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "gpucomm: GPUCOMM_JAVA_OPTS: the JVM does not start with these options:"
                + " Unrecognized option: -Xunknown\n");
    assertThat(javaArguments).doesNotExist();
  }

  @Test
  void theJvmIsAskedOnlyWhenOptionsAreGivenAsItIsLaunchedWritingAndTouchingNothing()
      throws Exception {
    assertThat(launch(" ", "bench").exitCode()).isZero();
    assertThat(javaQuestions).doesNotExist();

    assertThat(launch("-Xms8g -XX:+AlwaysPreTouch", "bench").exitCode()).isZero();
    assertThat(Files.readAllLines(javaQuestions))
        .containsExactly(
            "--enable-native-access=ALL-UNNAMED -Xms8g -XX:+AlwaysPreTouch -cp "
                + bundle.toRealPath()
                + "/lib/* -XX:-AlwaysPreTouch -XX:AOTMode=off -version");
  }

  /** The JDK's own refusals, which it prints partly on standard output, said on one line. */
  @Test
  void theRealJvmsRefusalIsSaidOnOneLine() throws Exception {
    Files.writeString(
        bundle.resolve("jre/bin/java"),
        "#!/bin/sh\nexec '%s' \"$@\"\n"
            .formatted(Path.of(System.getProperty("java.home"), "bin", "java")));

    Run tooSmall = launch("-Xmx1", "bench");
    Run mistyped = launchWith("JAVA_TOOL_OPTIONS", "-XX:+NoSuchFlagOfTheJvm", "bench");
    // the java launcher itself reads JDK_JAVA_OPTIONS, and says so first: "NOTE: Picked up ..."
    Run unknown = launchWith("JDK_JAVA_OPTIONS", "-Xunknown", "bench");

    assertThat(tooSmall.exitCode()).isEqualTo(2);
    assertThat(tooSmall.err())
        .isEqualTo(
            "gpucomm: GPUCOMM_JAVA_OPTS: the JVM does not start with these options: Error occurred"
                + " during initialization of VM; Too small maximum heap\n");
    assertThat(mistyped.exitCode()).isEqualTo(2);
    assertThat(mistyped.err())
        .startsWith(
            "gpucomm: JAVA_TOOL_OPTIONS: the JVM does not start with these options:"
                + " Unrecognized VM option 'NoSuchFlagOfTheJvm'")
        .hasLineCount(1);
    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.err())
        .isEqualTo(
            "gpucomm: JDK_JAVA_OPTIONS: the JVM does not start with these options:"
                + " Unrecognized option: -Xunknown\n");
  }

  @Test
  void withoutALocaleTheJvmReadsFileNamesAsUtf8AndStillWritesAscii() throws Exception {
    for (Map<String, String> noLocale :
        List.<Map<String, String>>of(Map.of(), Map.of("LANG", "C"), Map.of("LC_CTYPE", "POSIX"))) {
      // (an ASCII name: a test JVM without a locale could not pass café.yaml on intact itself)
      Run run = launchIn(noLocale, "run", "-f", "job.yaml");

      assertThat(run.exitCode()).as(run.err()).isZero();
      // only the character type: the user's other categories (messages, numbers) stay theirs
      assertThat(Files.readAllLines(javaLocale)).containsExactly("LC_ALL=", "LC_CTYPE=C.UTF-8");
      assertThat(Files.readAllLines(javaArguments))
          .startsWith(
              "--enable-native-access=ALL-UNNAMED",
              "-Dstdout.encoding=US-ASCII",
              "-Dstderr.encoding=US-ASCII")
          .endsWith("run", "-f", "job.yaml");
    }
  }

  @Test
  void anLcAllThatSaysCIsTheOneReplaced() throws Exception {
    Run run = launchIn(Map.of("LC_ALL", "C", "LANG", "en_US.UTF-8"), "bench");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(Files.readAllLines(javaLocale)).containsExactly("LC_ALL=C.UTF-8", "LC_CTYPE=");
  }

  @Test
  void aLocaleTheUserSetIsLeftAsItIs() throws Exception {
    for (Map<String, String> set :
        List.<Map<String, String>>of(
            Map.of("LANG", "C", "LC_CTYPE", "en_US.ISO-8859-1"),
            Map.of("LANG", "C", "LC_ALL", "en_US.UTF-8"))) {
      Run run = launchIn(set, "bench");

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(Files.readAllLines(javaLocale))
          .containsExactly(
              "LC_ALL=" + set.getOrDefault("LC_ALL", ""),
              "LC_CTYPE=" + set.getOrDefault("LC_CTYPE", ""));
      assertThat(Files.readAllLines(javaArguments)).doesNotContain("-Dstdout.encoding=US-ASCII");
    }
  }

  @Test
  void optionsNamingAClassDataArchiveAreAskedWithoutOneInsteadOfWithoutAot() throws Exception {
    assertThat(launchWith("JAVA_TOOL_OPTIONS", "-Xshare:auto", "bench").exitCode()).isZero();

    assertThat(Files.readAllLines(javaQuestions).getFirst())
        .endsWith("-XX:-AlwaysPreTouch -Xshare:off -version")
        .doesNotContain("AOTMode");
  }

  /**
   * The real JVM: without a locale, file names in UTF-8 and output in ASCII; class-data sharing
   * options, which the JVM refuses beside AOTMode, pass the question.
   */
  @Test
  void theRealJvmWithoutALocaleReadsUtf8NamesAndTakesSharingOptions() throws Exception {
    assumeTrue(hasLocale("C.UTF-8"), "the C.UTF-8 locale (glibc 2.35 and later have it)");
    Files.writeString(
        bundle.resolve("jre/bin/java"),
        "#!/bin/sh\nexec '%s' \"$@\"\n"
            .formatted(Path.of(System.getProperty("java.home"), "bin", "java")));

    Run run = launchIn(Map.of("GPUCOMM_JAVA_OPTS", "-XshowSettings:properties"), "bench");
    Run sharingOff = launch("-Xshare:off", "bench");

    assertThat(run.err())
        .contains(
            "sun.jnu.encoding = UTF-8", "stdout.encoding = US-ASCII", "native.encoding = UTF-8");
    // past the question: the launch itself finds no gpucomm classes in this stand-in bundle
    assertThat(sharingOff.err())
        .doesNotContain("does not start")
        .contains("Could not find or load main class");
  }

  private static boolean hasLocale(String name) throws Exception {
    Process locales = new ProcessBuilder("locale", "-a").redirectErrorStream(true).start();
    String all = new String(locales.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    locales.waitFor(10, TimeUnit.SECONDS);
    return all.lines().anyMatch(line -> line.equalsIgnoreCase(name) || line.equals("C.utf8"));
  }

  /**
   * The script and the ranks' launcher ({@link JvmOptionsCheck}) refuse the same options in the
   * same variables, with the same words: every option the JDK ends on, and some it does not.
   */
  @Test
  void theScriptAndTheRanksLauncherRefuseTheSameOptions() throws Exception {
    List<String> options = new ArrayList<>(JvmOptionsCheck.ENDS_THE_LAUNCH);
    options.addAll(
        List.of(
            "@/tmp/more-options",
            "-XX:Flags=.hotspotrc",
            "-XX:VMOptionsFile=/tmp/o",
            "--describe-module=java.base",
            "-Xmx4g",
            "-Dversion=1",
            "-XX:+PrintFlagsFinal",
            "-Xlog:gc",
            "-Xshare:auto",
            "-XX:AOTMode=record",
            "--source=25",
            "-showversion"));
    for (String variable : JvmOptionsCheck.VARIABLES) {
      for (String option : options) {
        String refusal;
        try {
          JvmOptionsCheck.requireRunnable(Map.of(variable, "-Xss2m " + option));
          refusal = null;
        } catch (UsageException e) {
          refusal = e.getMessage();
        }
        Files.deleteIfExists(javaArguments);

        Run run = launchWith(variable, "-Xss2m " + option, "bench");

        String what = variable + "=" + option;
        if (refusal == null) {
          assertThat(run.exitCode()).as(what).isZero();
        } else {
          assertThat(run.exitCode()).as(what).isEqualTo(2);
          assertThat(run.err()).as(what).isEqualTo("gpucomm: " + refusal + "\n");
          assertThat(javaArguments).as(what).doesNotExist();
        }
      }
    }
  }

  private Run launch(String javaOptions, String... arguments) throws Exception {
    return launchWith("GPUCOMM_JAVA_OPTS", javaOptions, arguments);
  }

  private Run launchWith(String variable, String javaOptions, String... arguments)
      throws Exception {
    return launchIn(Map.of("LANG", "C.UTF-8", variable, javaOptions), arguments);
  }

  /** Launches with {@code environment} and no locale or JVM option variables besides. */
  private Run launchIn(Map<String, String> environment, String... arguments) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(bundle.resolve("bin/gpucomm").toString());
    command.addAll(List.of(arguments));
    ProcessBuilder builder = new ProcessBuilder(command).directory(bundle.toFile());
    builder.environment().keySet().removeAll(JvmOptionsCheck.VARIABLES);
    builder.environment().keySet().removeAll(List.of("LANG", "LC_ALL", "LC_CTYPE"));
    builder.environment().putAll(environment);
    Process process = builder.start();
    process.getOutputStream().close();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new Run(
        process.exitValue(),
        new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  private record Run(int exitCode, String err) {}
}
