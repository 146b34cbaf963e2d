package dev.gpucomm.runtime.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.runtime.collective.cpu.CpuBackend;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import dev.gpucomm.runtime.device.cpu.CpuDevice;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Eager timing: an event every few calls, each sample the time per call between two events. */
class CallTimerTest {
  @Test
  void eachSampleCoversItsCallsAndReportsTheTimePerCall() {
    CpuBackend backend =
        new CpuBackend(CpuBackendConfig.defaults("call-timer-" + ProcessHandle.current().pid()));
    try (Device device = backend.open(0);
        CallTimer timer = new CallTimer(device)) {
      Stream stream = device.defaultStream();
      AtomicInteger calls = new AtomicInteger();
      // Each call sleeps 2 ms on the stream's worker, so a sample of 3 calls lasts at least 6 ms
      // and its time per call is at least 2 ms.
      Runnable call =
          () ->
              ((CpuDevice) device)
                  .streamOf(stream)
                  .launch(
                      "sleep",
                      () -> {
                        calls.incrementAndGet();
                        sleepMillis(2);
                      });
      double[] micros = new double[7];

      timer.timeCalls(call, stream, 7, 3, micros);

      assertThat(calls).hasValue(21);
      assertThat(java.util.Arrays.stream(micros).boxed().toList())
          .allSatisfy(perCall -> assertThat(perCall).isBetween(1_900.0, 50_000.0));
      assertThatThrownBy(() -> timer.timeCalls(call, stream, 1, 0, micros))
          .hasMessage("callsPerSample must be positive, got 0");
    }
  }

  private static void sleepMillis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
