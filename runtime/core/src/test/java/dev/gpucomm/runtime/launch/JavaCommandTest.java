package dev.gpucomm.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.runtime.UsageException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JavaCommandTest {
  @Test
  void theLaunchersJavaOptionsReachItsRanks() {
    JavaCommand rank = JavaCommand.ofCurrentJvm(Map.of("GPUCOMM_JAVA_OPTS", " -Xmx16g  -Dx=1 "));
    assertThat(rank.jvmOptions())
        .containsExactly(
            "--enable-native-access=ALL-UNNAMED",
            "-XX:+UseSerialGC",
            "--add-modules=jdk.incubator.vector",
            "-Xmx16g",
            "-Dx=1");
    assertThat(rank.command(List.of("rank"))).endsWith(JavaCommand.MAIN_CLASS, "rank");
  }

  @Test
  void aCollectorTheUserChoseReplacesTheSerialOne() {
    // the JVM refuses to start with two collectors, so every rank would die at once
    assertThat(
            JavaCommand.ofCurrentJvm(Map.of("GPUCOMM_JAVA_OPTS", "-XX:+UseParallelGC"))
                .jvmOptions())
        .contains("-XX:+UseParallelGC")
        .doesNotContain("-XX:+UseSerialGC");
  }

  @Test
  void withoutThemRanksGetTheDefaults() {
    assertThat(JavaCommand.ofCurrentJvm(Map.of()).jvmOptions())
        .containsExactly(
            "--enable-native-access=ALL-UNNAMED",
            "-XX:+UseSerialGC",
            "--add-modules=jdk.incubator.vector");
  }

  @Test
  void theVectorApiCanBeSwitchedOffForTheRanks() {
    assertThat(JavaCommand.ofCurrentJvm(Map.of("GPUCOMM_CPU_VECTOR", "off")).jvmOptions())
        .containsExactly("--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC");
  }

  @Test
  void ranksThatWillNeverRunC2StayOnThePortablePath() {
    for (String options : new String[] {"-Xint", "-Xmx4g -XX:TieredStopAtLevel=1"}) {
      assertThat(JavaCommand.ofCurrentJvm(Map.of("GPUCOMM_JAVA_OPTS", options)).jvmOptions())
          .as(options)
          .doesNotContain("--add-modules=jdk.incubator.vector");
    }
    assertThat(
            JavaCommand.ofCurrentJvm(Map.of("GPUCOMM_JAVA_OPTS", "-XX:TieredStopAtLevel=4"))
                .jvmOptions())
        .contains("--add-modules=jdk.incubator.vector");
  }

  @Test
  void anOptionAfterWhichTheJvmRunsNoRankIsRefusedBeforeAnyRankStarts() {
    Map<String, String> offendingOfOptions =
        Map.of(
            "-Xmx4g -version", "-version",
            "--help", "--help",
            "-jar x.jar", "-jar",
            "--describe-module=java.base", "--describe-module=java.base");
    offendingOfOptions.forEach(
        (options, offending) ->
            assertThatThrownBy(() -> JavaCommand.ofCurrentJvm(Map.of("GPUCOMM_JAVA_OPTS", options)))
                .as(options)
                .isInstanceOf(UsageException.class)
                .hasMessage(
                    "GPUCOMM_JAVA_OPTS: "
                        + offending
                        + " would start no gpucomm rank (the JVM would print or run something"
                        + " else); give JVM options only, e.g. -Xmx4g"));
    // a file of options could hold any of them unseen
    for (String options : new String[] {"@/tmp/args", "-XX:VMOptionsFile=/tmp/o", "-XX:Flags=f"}) {
      assertThatThrownBy(() -> JavaCommand.ofCurrentJvm(Map.of("GPUCOMM_JAVA_OPTS", options)))
          .as(options)
          .isInstanceOf(UsageException.class)
          .hasMessage(
              "GPUCOMM_JAVA_OPTS: "
                  + options
                  + " reads options from a file, unchecked; give the options themselves");
    }
    // properties and -XX flags that merely contain such a word are options like any other
    assertThat(
            JavaCommand.ofCurrentJvm(Map.of("GPUCOMM_JAVA_OPTS", "-Dversion=1 -Xshare:auto"))
                .jvmOptions())
        .contains("-Dversion=1", "-Xshare:auto");
  }
}
