package dev.gpucomm.runtime.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import org.junit.jupiter.api.Test;

class FirstPointWarmupTest {
  private static final long MIB = 1L << 20;

  @Test
  void smallGpuCallsWarmUpLongEnoughForTheLaunchPathToSettle() {
    assertThat(FirstPointWarmup.calls(DeviceKind.CUDA, MIB / 2)).isEqualTo(20_000);
    assertThat(FirstPointWarmup.calls(DeviceKind.CUDA, 4096)).isEqualTo(20_000);
  }

  @Test
  void largerGpuCallsWarmUpWithABoundedNumberOfBytes() {
    assertThat(FirstPointWarmup.calls(DeviceKind.CUDA, 2 * MIB)).isEqualTo(8192);
    assertThat(FirstPointWarmup.calls(DeviceKind.CUDA, 8 * MIB)).isEqualTo(2048);
  }

  @Test
  void theLargestGpuCallsStillWarmUpTheJit() {
    assertThat(FirstPointWarmup.calls(DeviceKind.CUDA, 64 * MIB)).isEqualTo(500);
    assertThat(FirstPointWarmup.calls(DeviceKind.CUDA, 1L << 40)).isEqualTo(500);
  }

  @Test
  void cpuCallsOnlyWarmUpTheJit() {
    assertThat(FirstPointWarmup.calls(DeviceKind.CPU, MIB / 2)).isEqualTo(500);
    assertThat(FirstPointWarmup.calls(DeviceKind.CPU, 64 * MIB)).isEqualTo(500);
  }

  @Test
  void aCheckingSweepWarmsUpSmallCallsAsATimedOneDoes() {
    assertThat(FirstPointWarmup.checkingCalls(DeviceKind.CPU, 16)).isEqualTo(500);
    assertThat(FirstPointWarmup.checkingCalls(DeviceKind.CUDA, 2048)).isEqualTo(20_000);
  }

  @Test
  void aCheckingSweepMovesAbout64MiBPerRankInItsWarmUp() {
    assertThat(FirstPointWarmup.checkingCalls(DeviceKind.CPU, 768 * 1024)).isEqualTo(85);
    assertThat(FirstPointWarmup.checkingCalls(DeviceKind.CUDA, 8 * MIB)).isEqualTo(8);
  }

  @Test
  void aCheckingSweepStillTurnsEverySlotOverAtTheLargestSizes() {
    // selftest's first all-gather point of 17 MiB made 500 calls on the CPU backend: 40 s of CI.
    assertThat(FirstPointWarmup.checkingCalls(DeviceKind.CPU, 17 * MIB)).isEqualTo(8);
    assertThat(FirstPointWarmup.checkingCalls(DeviceKind.CUDA, 1L << 40)).isEqualTo(8);
  }

  @Test
  void everyRankWarmsUpTheSameSizeAlike() {
    // A collective call must be made by every rank: the count depends on nothing rank-local.
    assertThat(FirstPointWarmup.calls(DeviceKind.CUDA, 3 * MIB))
        .isEqualTo(FirstPointWarmup.calls(DeviceKind.CUDA, 3 * MIB))
        .isEqualTo(5461);
  }
}
