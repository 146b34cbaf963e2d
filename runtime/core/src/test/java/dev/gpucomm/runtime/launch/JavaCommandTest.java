package dev.gpucomm.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;

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
}
