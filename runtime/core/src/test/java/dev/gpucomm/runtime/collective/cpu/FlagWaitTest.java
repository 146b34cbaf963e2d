package dev.gpucomm.runtime.collective.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How the time a rank waits for its peers is told apart from its own. */
class FlagWaitTest {
  private static final Duration PEER_DELAY = Duration.ofMillis(200);
  private static final Duration SLACK = Duration.ofMillis(50);

  private final SignalLayout layout = new SignalLayout(2);
  private final Arena arena = Arena.ofConfined();
  private final MemorySegment signals = arena.allocate(layout.signalBytes(), 64);
  private final FlagWait wait = new FlagWait(Duration.ofSeconds(10), 0, 0, signals, layout);

  @AfterEach
  void free() {
    arena.close();
  }

  @Test
  void aWaitForAPeerThatIsNotReadyYetIsTheTimeUntilItIs() throws InterruptedException {
    AtomicBoolean peerReady = new AtomicBoolean();
    Thread peer =
        Thread.ofPlatform()
            .start(
                () -> {
                  sleep(PEER_DELAY); // the peer is busy elsewhere
                  peerReady.set(true);
                });

    assertThat(wait.await(peerReady::get, "test")).isTrue();

    assertThat(Duration.ofNanos(wait.waitedNanos())).isGreaterThan(PEER_DELAY.minus(SLACK));
    peer.join();
  }

  @Test
  void timeThisRankWasNotLookingAfterItsPeerWasReadyIsItsOwn() {
    AtomicBoolean peerReady = new AtomicBoolean();
    // The first slow look finds the peer not ready; the peer gets ready at once, but this rank is
    // off the CPU for a while (a CPU quota, a stop) before it looks again. Progress runs between
    // two looks, which makes it the place to stand in for that.
    wait.progressWith(
        () -> {
          if (!peerReady.getAndSet(true)) {
            sleep(PEER_DELAY);
          }
        });
    long started = System.nanoTime();

    assertThat(wait.await(peerReady::get, "test")).isTrue();

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(PEER_DELAY);
    assertThat(Duration.ofNanos(wait.waitedNanos())).isLessThan(SLACK);
  }

  @Test
  void aWaitThatEndsAtTheFirstLookCostsNothing() {
    assertThat(wait.await(() -> true, "test")).isTrue();

    assertThat(wait.waitedNanos()).isZero();
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
