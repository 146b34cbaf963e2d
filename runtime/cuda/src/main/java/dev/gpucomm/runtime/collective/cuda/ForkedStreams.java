package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.runtime.device.Closing;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Stream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Streams that a call forks from the caller's stream and joins back into it, with the events that
 * order them, made once and reused by every call.
 */
final class ForkedStreams implements AutoCloseable {
  private final Event forked;
  private final List<Stream> streams;
  private final List<Event> joined;
  private final List<AutoCloseable> oldestFirst;

  private ForkedStreams(
      Event forked, List<Stream> streams, List<Event> joined, List<AutoCloseable> oldestFirst) {
    this.forked = forked;
    this.streams = streams;
    this.joined = joined;
    this.oldestFirst = oldestFirst;
  }

  /**
   * Makes {@code count} streams and their events; when one cannot be made, releases those already
   * made (failures to do so suppressed in the first failure) and rethrows.
   */
  static ForkedStreams create(int count, Supplier<Stream> newStream, Supplier<Event> newEvent) {
    List<AutoCloseable> made = new ArrayList<>();
    try {
      Event forked = newEvent.get();
      made.add(forked);
      List<Stream> streams = new ArrayList<>();
      List<Event> joined = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        Stream stream = newStream.get();
        made.add(stream);
        streams.add(stream);
        Event event = newEvent.get();
        made.add(event);
        joined.add(event);
      }
      return new ForkedStreams(forked, List.copyOf(streams), List.copyOf(joined), made);
    } catch (RuntimeException e) {
      RuntimeException releaseFailure = Closing.newestFirst(made);
      if (releaseFailure != null) {
        e.addSuppressed(releaseFailure);
      }
      throw e;
    }
  }

  Stream get(int index) {
    return streams.get(index);
  }

  int count() {
    return streams.size();
  }

  /** Makes every forked stream's later work wait for what {@code caller} has queued so far. */
  void fork(Stream caller) {
    forked.record(caller);
    for (Stream stream : streams) {
      stream.waitFor(forked);
    }
  }

  /** Makes {@code caller}'s later work wait for everything queued on the forked streams. */
  void join(Stream caller) {
    for (int i = 0; i < streams.size(); i++) {
      joined.get(i).record(streams.get(i));
      caller.waitFor(joined.get(i));
    }
  }

  /**
   * After {@code failure} interrupted a call: joins every forked stream that still can be, so that
   * work queued on the caller's stream later does not run beside the call's, adding what goes wrong
   * to {@code failure} as suppressed.
   */
  void joinAfter(RuntimeException failure, Stream caller) {
    for (int i = 0; i < streams.size(); i++) {
      try {
        joined.get(i).record(streams.get(i));
        caller.waitFor(joined.get(i));
      } catch (RuntimeException e) {
        failure.addSuppressed(e);
      }
    }
  }

  /** Releases the streams and events after the last call has completed. */
  @Override
  public void close() {
    RuntimeException failure = Closing.newestFirst(oldestFirst);
    if (failure != null) {
      throw failure;
    }
  }
}
