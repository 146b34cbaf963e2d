package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * After a copy-engine call fails part-way, or a kernel launch fails, the gather refuses every later
 * call, saying why.
 */
class EarlierFailureTest {
  @Test
  void callsRunWhileNothingHasFailed() {
    EarlierFailure failure = new EarlierFailure();

    assertThatCode(() -> failure.refuseAfterFailure("all-gather", 1)).doesNotThrowAnyException();
  }

  @Test
  void aCallAfterAFailedOneIsRefusedNamingTheFirstFailure() {
    EarlierFailure failure = new EarlierFailure();
    RuntimeException pushFailed = new IllegalStateException("cuMemcpyAsync failed");
    failure.record("an earlier copy-engine call failed part-way", pushFailed);
    failure.record(
        "an earlier kernel launch failed", new IllegalStateException("cuLaunchKernel failed"));

    assertThatThrownBy(() -> failure.refuseAfterFailure("reduce-scatter", 1))
        .isInstanceOf(IllegalStateException.class)
        .hasCause(pushFailed)
        .hasMessage(
            "reduce-scatter of local rank 1 cannot run: an earlier copy-engine call failed"
                + " part-way and left the peers' state unknown"
                + " (java.lang.IllegalStateException: cuMemcpyAsync failed); recreate the"
                + " communicator");
  }

  @Test
  void aFailedKernelLaunchRefusesTheCallsAfterItSinceThisRanksEpochsFellBehind() {
    EarlierFailure failure = new EarlierFailure();
    failure.record(
        "an earlier kernel launch failed",
        new IllegalStateException("cuLaunchKernel failed: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"));

    assertThatThrownBy(() -> failure.refuseAfterFailure("all-gather", 0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(
            "all-gather of local rank 0 cannot run: an earlier kernel launch failed and left the"
                + " peers' state unknown");
  }
}
