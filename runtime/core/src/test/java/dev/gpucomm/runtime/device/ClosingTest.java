package dev.gpucomm.runtime.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClosingTest {
  @Test
  void closesNewestFirstAndKeepsGoingPastFailures() {
    List<String> closed = new ArrayList<>();
    AutoCloseable stream = () -> closed.add("stream");
    AutoCloseable event =
        () -> {
          closed.add("event");
          throw new IllegalStateException("event busy");
        };
    AutoCloseable buffer =
        () -> {
          closed.add("buffer");
          throw new java.io.IOException("unmapped twice");
        };

    RuntimeException failure = Closing.newestFirst(List.of(stream, event, buffer));

    assertThat(closed).containsExactly("buffer", "event", "stream");
    assertThat(failure).hasMessageContaining("unmapped twice");
    assertThat(failure.getSuppressed())
        .extracting(Throwable::getMessage)
        .containsExactly("event busy");
  }

  @Test
  void anErrorDoesNotStopTheOthersClosingAndIsThrownOnceTheyHave() {
    List<String> closed = new ArrayList<>();
    AutoCloseable stream = () -> closed.add("stream");
    AutoCloseable event =
        () -> {
          closed.add("event");
          throw new IllegalStateException("event busy");
        };
    AutoCloseable buffer =
        () -> {
          closed.add("buffer");
          throw new OutOfMemoryError("Java heap space");
        };

    assertThatThrownBy(() -> Closing.newestFirst(List.of(stream, event, buffer)))
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
    List<String> closed = new ArrayList<>();

    assertThat(Closing.newestFirst(List.of(() -> closed.add("a"), () -> closed.add("b")))).isNull();
    assertThat(closed).containsExactly("b", "a");
  }
}
