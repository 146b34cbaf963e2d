package dev.gpucomm.runtime.device.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CpuPlacementTest {
  @Test
  void twoRanksOnAProcessAllowedCpusTwoAndFiveTakeOneEachInOrder() {
    List<Integer> allowed = List.of(2, 5);

    assertThat(CpuPlacement.choose(CpuBindMode.CORE, 0, 2, allowed))
        .isEqualTo(new CpuPlacement.Bound(List.of(2), allowed));
    assertThat(CpuPlacement.choose(CpuBindMode.CORE, 1, 2, allowed))
        .isEqualTo(new CpuPlacement.Bound(List.of(5), allowed));
  }

  @Test
  void spareCpusAreSharedOutSoThatEveryRankKeepsAsEvenAShareAsTheyGo() {
    List<Integer> allowed = List.of(0, 1, 2, 3, 4, 5, 6);

    assertThat(CpuPlacement.choose(CpuBindMode.CORE, 0, 3, allowed))
        .isEqualTo(new CpuPlacement.Bound(List.of(0, 1), allowed));
    assertThat(CpuPlacement.choose(CpuBindMode.CORE, 1, 3, allowed))
        .isEqualTo(new CpuPlacement.Bound(List.of(2, 3), allowed));
    assertThat(CpuPlacement.choose(CpuBindMode.CORE, 2, 3, allowed))
        .isEqualTo(new CpuPlacement.Bound(List.of(4, 5, 6), allowed));
  }

  @Test
  void ranksOfSeveralPodsAreNumberedByTheJobSoThatPodsOnOneHostDoNotShareACpu() {
    // Three pods of one rank each on a host of three CPUs: rank 2 is local rank 0 of its pod.
    List<Integer> allowed = List.of(0, 1, 2);

    assertThat(CpuPlacement.choose(CpuBindMode.CORE, 2, 3, allowed))
        .isEqualTo(new CpuPlacement.Bound(List.of(2), allowed));
  }

  @Test
  void moreRanksThanCpusLeavesEveryRankUnboundAndSaysWhy() {
    CpuPlacement placement = CpuPlacement.choose(CpuBindMode.CORE, 0, 3, List.of(0, 1));

    assertThat(placement).isEqualTo(new CpuPlacement.Unbound("3 ranks share 2 CPUs (0-1)"));
  }

  @Test
  void theOptOutLeavesRanksUnboundWhateverTheCpus() {
    CpuPlacement placement = CpuPlacement.choose(CpuBindMode.NONE, 1, 2, List.of(0, 1, 2, 3));

    assertThat(placement).isEqualTo(new CpuPlacement.Unbound("GPUCOMM_CPU_BIND=none"));
  }

  @Test
  void unknownAllowedCpusLeaveRanksUnbound() {
    CpuPlacement placement = CpuPlacement.choose(CpuBindMode.CORE, 0, 1, List.of());

    assertThat(placement)
        .isEqualTo(new CpuPlacement.Unbound("the CPUs this process may use are unknown"));
  }
}
