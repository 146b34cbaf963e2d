package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.device.Closing;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.ShareableBuffer;
import dev.gpucomm.runtime.device.Stream;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything an interpreter creates on its device (buffers, worker streams, events), created once
 * and reused by every run, and closed together in reverse order of creation.
 */
final class DeviceResources implements AutoCloseable {
  private final Device device;
  private final List<AutoCloseable> owned = new ArrayList<>();
  private final List<StreamSlot> workers = new ArrayList<>();
  private boolean closed;

  DeviceResources(Device device) {
    this.device = device;
  }

  Device device() {
    return device;
  }

  DeviceBuffer allocate(long bytes, boolean shareable) {
    checkOpen();
    DeviceBuffer buffer = shareable ? device.allocateShareable(bytes) : device.allocate(bytes);
    owned.add(buffer);
    return buffer;
  }

  ShareableBuffer allocateShareable(long bytes) {
    checkOpen();
    ShareableBuffer buffer = device.allocateShareable(bytes);
    owned.add(buffer);
    return buffer;
  }

  /** Worker stream {@code index}, created on first use. */
  StreamSlot worker(int index) {
    checkOpen();
    if (index < 0) {
      throw new IllegalStateException("worker stream index " + index + " is negative");
    }
    while (workers.size() <= index) {
      Stream stream = device.createStream();
      owned.add(stream);
      workers.add(new StreamSlot(stream, workers.size()));
    }
    return workers.get(index);
  }

  /** Waits for every worker stream, rethrowing the first failure of their work. */
  void synchronizeWorkers() {
    for (StreamSlot worker : workers) {
      worker.stream().synchronize();
    }
  }

  int workerCount() {
    return workers.size();
  }

  Event createEvent() {
    checkOpen();
    Event event = device.createEvent();
    owned.add(event);
    return event;
  }

  /** One event per stream for one statement, created the first time that stream needs it. */
  final class EventsByStream {
    private final Map<Stream, Event> events = new IdentityHashMap<>();

    Event on(Stream stream) {
      Event event = events.get(stream);
      if (event == null) {
        event = createEvent();
        events.put(stream, event);
      }
      return event;
    }
  }

  EventsByStream eventsByStream() {
    return new EventsByStream();
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("interpreter is closed");
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    RuntimeException failure = Closing.newestFirst(owned);
    owned.clear();
    if (failure != null) {
      throw failure;
    }
  }
}
