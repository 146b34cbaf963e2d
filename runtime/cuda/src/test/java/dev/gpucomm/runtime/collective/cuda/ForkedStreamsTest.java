package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Stream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The side streams of a copy-engine call: made together, joined back even after a failure. */
class ForkedStreamsTest {
  private final List<String> log = new ArrayList<>();
  private final Map<String, RuntimeException> recordFailureOnStream = new HashMap<>();
  private final Map<String, RuntimeException> closeFailureOfEvent = new HashMap<>();
  private int streamsMade;
  private int eventsMade;

  @Test
  void aCallForksEveryStreamFromTheCallersAndJoinsThemBack() {
    ForkedStreams forked = ForkedStreams.create(2, this::newStream, this::newEvent);
    Stream caller = new LoggedStream("caller");

    forked.fork(caller);
    forked.join(caller);

    assertThat(log)
        .containsExactly(
            "event-0 recorded on caller",
            "stream-0 waits for event-0",
            "stream-1 waits for event-0",
            "event-1 recorded on stream-0",
            "caller waits for event-1",
            "event-2 recorded on stream-1",
            "caller waits for event-2");
  }

  @Test
  void aFailureMidCallStillJoinsEveryStreamThatCanBeAndKeepsTheFailure() {
    ForkedStreams forked = ForkedStreams.create(3, this::newStream, this::newEvent);
    RuntimeException joinFailure = new IllegalStateException("cuEventRecord failed");
    Stream caller = new LoggedStream("caller");
    forked.fork(caller);
    log.clear();
    recordFailureOnStream.put("stream-1", joinFailure);
    RuntimeException pushFailure = new IllegalStateException("cuStreamWaitValue32 failed");

    forked.joinAfter(pushFailure, caller);

    assertThat(log)
        .containsExactly(
            "event-1 recorded on stream-0",
            "caller waits for event-1",
            "event-3 recorded on stream-2",
            "caller waits for event-3");
    assertThat(pushFailure.getSuppressed()).containsExactly(joinFailure);
  }

  @Test
  void aStreamThatCannotBeMadeReleasesThoseMadeBeforeNewestFirst() {
    RuntimeException outOfStreams = new IllegalStateException("cuStreamCreate failed");
    RuntimeException closeFailure = new IllegalStateException("cuEventDestroy failed");
    closeFailureOfEvent.put("event-1", closeFailure);

    assertThatThrownBy(
            () ->
                ForkedStreams.create(
                    3,
                    () -> {
                      if (streamsMade == 2) {
                        throw outOfStreams;
                      }
                      return newStream();
                    },
                    this::newEvent))
        .isSameAs(outOfStreams)
        .satisfies(e -> assertThat(e.getSuppressed()).containsExactly(closeFailure));
    assertThat(log)
        .containsExactly(
            "event-2 closed",
            "stream-1 closed",
            "event-1 closed",
            "stream-0 closed",
            "event-0 closed");
  }

  @Test
  void closingReleasesEveryStreamAndEventNewestFirst() {
    ForkedStreams forked = ForkedStreams.create(1, this::newStream, this::newEvent);

    forked.close();

    assertThat(log).containsExactly("event-1 closed", "stream-0 closed", "event-0 closed");
  }

  private Stream newStream() {
    return new LoggedStream("stream-" + streamsMade++);
  }

  private Event newEvent() {
    return new LoggedEvent("event-" + eventsMade++);
  }

  private final class LoggedStream implements Stream {
    private final String name;

    LoggedStream(String name) {
      this.name = name;
    }

    @Override
    public void synchronize() {}

    @Override
    public void waitFor(Event event) {
      log.add(name + " waits for " + event);
    }

    @Override
    public void close() {
      log.add(name + " closed");
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private final class LoggedEvent implements Event {
    private final String name;

    LoggedEvent(String name) {
      this.name = name;
    }

    @Override
    public void record(Stream stream) {
      RuntimeException failure = recordFailureOnStream.get(stream.toString());
      if (failure != null) {
        throw failure;
      }
      log.add(name + " recorded on " + stream);
    }

    @Override
    public void synchronize() {}

    @Override
    public float elapsedMillisSince(Event start) {
      return 0;
    }

    @Override
    public void close() {
      log.add(name + " closed");
      RuntimeException failure = closeFailureOfEvent.get(name);
      if (failure != null) {
        throw failure;
      }
    }

    @Override
    public String toString() {
      return name;
    }
  }
}
