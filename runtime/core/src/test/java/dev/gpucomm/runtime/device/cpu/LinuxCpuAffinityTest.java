package dev.gpucomm.runtime.device.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

class LinuxCpuAffinityTest {
  @Test
  @EnabledOnOs(OS.LINUX)
  void theAllowedCpusReadThroughTheSchedulerAreThoseTheKernelListsForThisThread() throws Exception {
    String status = Files.readString(Path.of("/proc/thread-self/status"));
    String kernelList =
        status
            .lines()
            .filter(line -> line.startsWith("Cpus_allowed_list:"))
            .map(line -> line.substring(line.indexOf(':') + 1).strip())
            .findFirst()
            .orElseThrow();

    assertThat(CpuList.format(LinuxCpuAffinity.allowedCpus())).isEqualTo(kernelList);
  }
}
