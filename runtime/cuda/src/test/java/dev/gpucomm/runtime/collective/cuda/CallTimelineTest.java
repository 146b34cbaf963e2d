package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.collective.cpu.CpuBackend;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cpu.CpuDevice;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The per-step timeline of calls, on the CPU backend's events (host clock). */
class CallTimelineTest {

  @Test
  void eachStepIsTimedFromItsOwnCallsFirstMarkAndCallsFromOneToTheNext() throws Exception {
    try (CpuDevice device = new CpuBackend().open(0);
        CallTimeline timeline = new CallTimeline(device)) {
      Stream stream = device.defaultStream();
      for (int call = 0; call < 5; call++) {
        // The CPU stream's worker stamps each mark when it runs it: wait for it before sleeping,
        // so that a worker slow to start cannot shorten the gaps.
        timeline.beginCall(stream);
        stream.synchronize();
        Thread.sleep(3);
        timeline.mark("copy", stream);
        stream.synchronize();
        Thread.sleep(2);
        timeline.mark("kernel end", stream);
      }

      assertThat(timeline.offsets("call", 1)).hasSize(4).containsOnly(0.0);
      assertThat(Arrays.stream(timeline.offsets("copy", 1)).boxed())
          .hasSize(4)
          .allSatisfy(us -> assertThat(us).isGreaterThanOrEqualTo(3000));
      assertThat(Arrays.stream(timeline.offsets("kernel end", 1)).boxed())
          .allSatisfy(us -> assertThat(us).isGreaterThanOrEqualTo(5000));
      assertThat(timeline.medianPeriod(1)).isGreaterThanOrEqualTo(5000);
      assertThat(timeline.report(1).lines().map(line -> line.trim().split(" +")[0]))
          .containsExactly("period", "call", "copy", "kernel");
    }
  }

  @Test
  void aStepMissingFromSomeCallsIsTimedOverTheCallsThatHaveIt() throws Exception {
    try (CpuDevice device = new CpuBackend().open(0);
        CallTimeline timeline = new CallTimeline(device)) {
      Stream stream = device.defaultStream();
      for (int call = 0; call < 4; call++) {
        timeline.beginCall(stream);
        if (call % 2 == 0) {
          timeline.mark("host copy", stream);
        }
      }

      assertThat(timeline.offsets("host copy", 0)).hasSize(2);
    }
  }

  @Test
  void tooFewCallsForAPeriodAreSaidSo() {
    try (CpuDevice device = new CpuBackend().open(0);
        CallTimeline timeline = new CallTimeline(device)) {
      timeline.beginCall(device.defaultStream());

      assertThat(timeline.report(0)).isEqualTo("timeline: too few calls");
    }
  }

  @Test
  void marksOutsideACallAreIgnored() {
    try (CpuDevice device = new CpuBackend().open(0);
        CallTimeline timeline = new CallTimeline(device)) {
      timeline.mark("stray", device.defaultStream());

      assertThat(timeline.offsets("stray", 0)).isEmpty();
    }
  }

  @Test
  void theMedianOfAnOddAndOfAnEvenCountIsTheUpperMiddleValue() {
    assertThat(CallTimeline.median(new double[] {5, 1, 3})).isEqualTo(3);
    assertThat(CallTimeline.median(new double[] {4, 1, 3, 2})).isEqualTo(3);
    assertThat(CallTimeline.median(new double[0])).isNaN();
  }
}
