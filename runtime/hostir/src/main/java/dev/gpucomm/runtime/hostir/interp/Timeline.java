package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.device.Closing;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Stream;
import java.util.ArrayList;
import java.util.List;

/**
 * Records, during a run, device events around every traced statement on the stream it posts to, so
 * that the run can be read as a timeline ({@link TimelineSpan}s): which matmul ran beside which
 * communication, and where a stream waited. Times are relative to an event recorded on the main
 * stream by {@link #start}. Events are created during the first run and reused by later ones, so
 * that a run after the first posts its work as fast as an untraced run (creating events while
 * posting would leave the device waiting for the host); they are closed with the timeline.
 */
final class Timeline implements AutoCloseable {
  private final Device device;
  private final Event origin;
  private final List<Pending> pending = new ArrayList<>();
  private final List<Event> events = new ArrayList<>();
  private int used;

  private record Pending(String stream, String what, Event start, Event end) {}

  Timeline(Device device) {
    this.device = device;
    this.origin = device.createEvent();
  }

  /** Starts a run on {@code main}: forgets the spans of the previous one, keeps its events. */
  void start(Stream main) {
    pending.clear();
    used = 0;
    origin.record(main);
  }

  /** Marks the start of a statement's work on {@code slot}; returns its handle for {@link #end}. */
  int begin(String what, StreamSlot slot) {
    Event start = nextEvent();
    Event end = nextEvent();
    start.record(slot.stream());
    pending.add(new Pending(streamName(slot), what, start, end));
    return pending.size() - 1;
  }

  void end(int handle, StreamSlot slot) {
    pending.get(handle).end().record(slot.stream());
  }

  /** The spans in the order their statements were posted; the run's work must be done. */
  List<TimelineSpan> spans() {
    List<TimelineSpan> spans = new ArrayList<>(pending.size());
    for (Pending entry : pending) {
      entry.end().synchronize();
      spans.add(
          new TimelineSpan(
              entry.stream(),
              entry.what(),
              entry.start().elapsedMillisSince(origin),
              entry.end().elapsedMillisSince(origin)));
    }
    return spans;
  }

  static String streamName(StreamSlot slot) {
    return slot.workerIndex() < 0 ? "main" : "worker " + slot.workerIndex();
  }

  private Event nextEvent() {
    if (used == events.size()) {
      events.add(device.createEvent());
    }
    return events.get(used++);
  }

  @Override
  public void close() {
    List<Event> oldestFirst = new ArrayList<>();
    oldestFirst.add(origin);
    oldestFirst.addAll(events);
    RuntimeException failure = Closing.newestFirst(oldestFirst);
    if (failure != null) {
      throw failure;
    }
  }
}
