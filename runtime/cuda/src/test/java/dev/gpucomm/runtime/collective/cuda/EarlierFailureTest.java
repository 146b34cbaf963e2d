package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** After a copy-engine call fails part-way, the gather refuses every later call, saying why. */
class EarlierFailureTest {
  @Test
  void callsRunWhileNothingHasFailed() {
    EarlierFailure failure = new EarlierFailure("an earlier copy-engine call");

    assertThatCode(() -> failure.refuseAfterFailure("all-gather", 1)).doesNotThrowAnyException();
  }

  @Test
  void aCallAfterAFailedOneIsRefusedNamingTheFirstFailure() {
    EarlierFailure failure = new EarlierFailure("an earlier copy-engine call");
    RuntimeException pushFailed = new IllegalStateException("cuMemcpyAsync failed");
    failure.record(pushFailed);
    failure.record(new IllegalStateException("cuStreamWaitValue32 failed"));

    assertThatThrownBy(() -> failure.refuseAfterFailure("reduce-scatter", 1))
        .isInstanceOf(IllegalStateException.class)
        .hasCause(pushFailed)
        .hasMessage(
            "reduce-scatter of local rank 1 cannot run: an earlier copy-engine call failed"
                + " part-way and left the peers' state unknown"
                + " (java.lang.IllegalStateException: cuMemcpyAsync failed); recreate the"
                + " communicator");
  }
}
