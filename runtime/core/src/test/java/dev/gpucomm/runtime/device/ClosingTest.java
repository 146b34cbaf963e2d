package dev.gpucomm.runtime.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClosingTest {
  private final List<String> closed = new ArrayList<>();

  @Test
  void closesNewestFirstAndKeepsGoingPastFailures() {
    RuntimeException failure =
        Closing.newestFirst(streamEventAndBuffer(new java.io.IOException("unmapped twice")));

    assertThat(closed).containsExactly("buffer", "event", "stream");
    assertThat(failure).hasMessageContaining("unmapped twice");
    assertThat(failure.getSuppressed())
        .extracting(Throwable::getMessage)
        .containsExactly("event busy");
  }

  @Test
  void anErrorDoesNotStopTheOthersClosingAndIsThrownOnceTheyHave() {
    List<AutoCloseable> resources = streamEventAndBuffer(new OutOfMemoryError("Java heap space"));

    assertThatThrownBy(() -> Closing.newestFirst(resources))
        .isInstanceOf(OutOfMemoryError.class)
        .satisfies(
            error ->
                assertThat(error.getSuppressed())
                    .extracting(Throwable::getMessage)
                    .containsExactly("event busy"));
    assertThat(closed).containsExactly("buffer", "event", "stream");
  }

  @Test
  void returnsNothingWhenEverythingClosed() {
    assertThat(Closing.newestFirst(List.of(() -> closed.add("a"), () -> closed.add("b")))).isNull();
    assertThat(closed).containsExactly("b", "a");
  }

  /**
   * A stream that closes, an event that fails to ("event busy"), and a buffer that throws {@code
   * bufferFailure}, in the order they were made; each notes in {@link #closed} that it was closed.
   */
  private List<AutoCloseable> streamEventAndBuffer(Throwable bufferFailure) {
    AutoCloseable stream = () -> closed.add("stream");
    AutoCloseable event =
        () -> {
          closed.add("event");
          throw new IllegalStateException("event busy");
        };
    AutoCloseable buffer =
        () -> {
          closed.add("buffer");
          if (bufferFailure instanceof Error error) {
            throw error;
          }
          throw (Exception) bufferFailure;
        };
    return List.of(stream, event, buffer);
  }
}
