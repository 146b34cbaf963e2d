package dev.gpucomm.runtime.rank;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.rank.FaultInjection.InjectedFaultException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FaultInjectionTest {
  @Test
  void theNamedRankFailsAndTheOthersGoOn() {
    FaultInjection faults = FaultInjection.fromEnv(Map.of("GPUCOMM_TEST_FAIL_RANK", "1"));

    assertThatCode(() -> faults.afterRendezvous(0, 2)).doesNotThrowAnyException();
    assertThatThrownBy(() -> faults.afterRendezvous(1, 2))
        .isInstanceOf(InjectedFaultException.class)
        .hasMessage("injected failure (GPUCOMM_TEST_FAIL_RANK=1)");
  }

  @Test
  void aRankTheWorldDoesNotHaveFailsEveryRankRatherThanLettingTheRunPass() {
    FaultInjection faults = FaultInjection.fromEnv(Map.of("GPUCOMM_TEST_FAIL_RANK", "2"));

    for (int rank = 0; rank < 2; rank++) {
      int r = rank;
      assertThatThrownBy(() -> faults.afterRendezvous(r, 2))
          .hasMessage("GPUCOMM_TEST_FAIL_RANK=2 names no rank of this world of 2 (0..1)");
    }
    assertThatThrownBy(
            () ->
                FaultInjection.fromEnv(Map.of("GPUCOMM_TEST_FAIL_RANK", "-1"))
                    .afterRendezvous(0, 2))
        .hasMessageContaining("names no rank");
  }

  @Test
  void unsetOrBlankInjectsNothingAndTextIsAUsageError() {
    assertThatCode(() -> FaultInjection.fromEnv(Map.of()).afterRendezvous(0, 1))
        .doesNotThrowAnyException();
    assertThatCode(
            () ->
                FaultInjection.fromEnv(Map.of("GPUCOMM_TEST_FAIL_RANK", " ")).afterRendezvous(0, 1))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> FaultInjection.fromEnv(Map.of("GPUCOMM_TEST_FAIL_RANK", "one")))
        .isInstanceOf(UsageException.class)
        .hasMessage("GPUCOMM_TEST_FAIL_RANK: 'one' is not a rank number");
  }

  @Test
  void aRankMayFailOnceItsPeersStartTheWorkloadInstead() {
    FaultInjection faults =
        FaultInjection.fromEnv(
            Map.of("GPUCOMM_TEST_FAIL_RANK", "1", "GPUCOMM_TEST_FAIL_AT", "workload"));

    assertThatCode(() -> faults.afterRendezvous(1, 2)).doesNotThrowAnyException();
    assertThatCode(() -> faults.beforeWorkload(0, 2)).doesNotThrowAnyException();
    assertThatThrownBy(() -> faults.beforeWorkload(1, 2))
        .isInstanceOf(InjectedFaultException.class)
        .hasMessage("injected failure (GPUCOMM_TEST_FAIL_RANK=1 GPUCOMM_TEST_FAIL_AT=workload)");
    assertThatThrownBy(() -> FaultInjection.fromEnv(Map.of("GPUCOMM_TEST_FAIL_AT", "later")))
        .isInstanceOf(UsageException.class)
        .hasMessage("GPUCOMM_TEST_FAIL_AT: unknown value 'later' (expected rendezvous, workload)");
  }
}
