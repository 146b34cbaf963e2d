package dev.gpucomm.runtime.device.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.runtime.collective.cpu.CpuBackend;
import dev.gpucomm.runtime.device.Event;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CpuStreamTest {
  private final CpuDevice device = new CpuBackend(CpuBackendConfig.defaults("stream-test")).open(0);

  @AfterEach
  void closeDevice() {
    device.close();
  }

  @Test
  void kernelsRunInLaunchOrderOnTheStreamsWorkerThread() {
    CpuStream stream = device.streamOf(device.createStream());
    List<String> ran = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 100; i++) {
      int index = i;
      stream.launch("append", () -> ran.add(index + " on " + Thread.currentThread().getName()));
    }
    stream.synchronize();
    assertThat(ran).hasSize(100);
    for (int i = 0; i < 100; i++) {
      assertThat(ran.get(i)).isEqualTo(i + " on " + stream.name());
    }
  }

  @Test
  void aFailedKernelIsReportedBySynchronizeAndLaterKernelsAreSkippedUntilThen() {
    CpuStream stream = device.defaultStream();
    AtomicInteger ran = new AtomicInteger();
    stream.launch("first", ran::incrementAndGet);
    stream.launch(
        "broken",
        () -> {
          throw new IllegalStateException("the kernel broke");
        });
    stream.launch("skipped", ran::incrementAndGet);

    assertThatThrownBy(stream::synchronize)
        .isInstanceOf(CpuKernelFailedException.class)
        .hasMessage("broken on gpucomm-cpu0-stream0 failed: the kernel broke")
        .hasCauseInstanceOf(IllegalStateException.class);
    assertThat(ran).hasValue(1);

    // Reported once, the failure is cleared and the stream runs kernels again.
    stream.launch("after", ran::incrementAndGet);
    stream.synchronize();
    assertThat(ran).hasValue(2);
  }

  @Test
  void eventsTimeTheWorkBetweenThem() {
    CpuStream stream = device.defaultStream();
    Event start = device.createEvent();
    Event end = device.createEvent();
    assertThatThrownBy(() -> end.elapsedMillisSince(start))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("was never recorded");

    start.record(stream);
    stream.launch("spin 5 ms", () -> spin(Duration.ofMillis(5)));
    end.record(stream);
    end.synchronize();

    assertThat(end.elapsedMillisSince(start)).isGreaterThanOrEqualTo(5f).isLessThan(5_000f);
    assertThat(start.elapsedMillisSince(end)).isLessThanOrEqualTo(-5f);
  }

  @Test
  void aStreamWaitingForAnEventRunsItsLaterWorkOnlyAfterTheEvent() {
    CpuStream first = device.streamOf(device.createStream());
    CpuStream second = device.streamOf(device.createStream());
    CountDownLatch release = new CountDownLatch(1);
    List<String> order = new CopyOnWriteArrayList<>();
    Event done = device.createEvent();

    first.launch(
        "blocked",
        () -> {
          release.await();
          order.add("first");
        });
    done.record(first);
    second.waitFor(done);
    second.launch("after the event", () -> order.add("second"));
    assertThat(order).isEmpty();

    release.countDown();
    second.synchronize();
    assertThat(order).containsExactly("first", "second");
  }

  @Test
  void waitingForAnEventThatWasNeverRecordedWaitsForNothing() {
    CpuStream stream = device.defaultStream();
    stream.waitFor(device.createEvent());
    AtomicInteger ran = new AtomicInteger();
    stream.launch("runs", ran::incrementAndGet);
    stream.synchronize();
    assertThat(ran).hasValue(1);
  }

  @Test
  void aCapturedGraphRecordsKernelsInsteadOfRunningThemAndReplaysThem() {
    CpuStream stream = device.streamOf(device.createStream());
    AtomicInteger ran = new AtomicInteger();
    CpuGraph graph =
        device.capture(
            stream,
            () -> {
              stream.launch("one", ran::incrementAndGet);
              stream.launch("two", () -> ran.addAndGet(10));
              assertThatThrownBy(stream::synchronize)
                  .isInstanceOf(IllegalStateException.class)
                  .hasMessageContaining("not allowed while it captures a graph");
              assertThatThrownBy(() -> device.createEvent().record(stream))
                  .isInstanceOf(IllegalStateException.class)
                  .hasMessageContaining("cannot be recorded into a graph capture");
            });
    stream.synchronize();
    assertThat(ran).hasValue(0);
    assertThat(graph.kernelCount()).isEqualTo(2);

    graph.replay(stream);
    graph.replay(stream);
    stream.synchronize();
    assertThat(ran).hasValue(22);

    graph.close();
    assertThatThrownBy(() -> graph.replay(stream)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aCaptureWhoseBodyThrowsLeavesTheStreamRunningKernelsAgain() {
    CpuStream stream = device.defaultStream();
    AtomicInteger ran = new AtomicInteger();
    assertThatThrownBy(
            () ->
                device.capture(
                    stream,
                    () -> {
                      stream.launch("captured", ran::incrementAndGet);
                      throw new IllegalArgumentException("bad body");
                    }))
        .hasMessage("bad body");
    stream.launch("live", ran::incrementAndGet);
    stream.synchronize();
    assertThat(ran).hasValue(1);
  }

  @Test
  void synchronizingAStreamFromItsOwnKernelIsRefusedInsteadOfHanging() {
    CpuStream stream = device.defaultStream();
    stream.launch("self-wait", stream::synchronize);
    assertThatThrownBy(stream::synchronize)
        .hasRootCauseMessage(
            "synchronize on gpucomm-cpu0-stream0 from its own worker thread would never return");
  }

  private static void spin(Duration duration) {
    long end = System.nanoTime() + duration.toNanos();
    while (System.nanoTime() < end) {
      Thread.onSpinWait();
    }
  }
}
