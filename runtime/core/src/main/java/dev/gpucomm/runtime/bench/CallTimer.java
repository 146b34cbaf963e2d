package dev.gpucomm.runtime.bench;

import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Graph;
import dev.gpucomm.runtime.device.Stream;
import java.util.Arrays;

/**
 * Times device work with events, allocating nothing while it times.
 *
 * <p>Eager: calls back to back on one stream with an event every {@code callsPerSample} calls (the
 * same number a graph replay captures); a sample is the distance between two events divided by the
 * calls between them, so a call's launch overhead that overlaps the previous call's execution is
 * hidden, as in a real model, and recording an event does not add its own host cost to every call.
 * Graph: the same per replay, divided by the calls captured in the graph. The events are created
 * once and reused in batches of {@value #BATCH} samples.
 */
public final class CallTimer implements AutoCloseable {
  static final int BATCH = 1024;

  private final Event[] events = new Event[BATCH + 1];

  public CallTimer(Device device) {
    for (int i = 0; i < events.length; i++) {
      events[i] = device.createEvent();
    }
  }

  /**
   * Runs {@code samples × callsPerSample} calls; writes each sample's time per call in microseconds
   * into {@code micros}.
   */
  public void timeCalls(
      Runnable call, Stream stream, int samples, int callsPerSample, double[] micros) {
    if (callsPerSample < 1) {
      throw new IllegalArgumentException("callsPerSample must be positive, got " + callsPerSample);
    }
    int done = 0;
    while (done < samples) {
      int batch = Math.min(BATCH, samples - done);
      events[0].record(stream);
      for (int i = 0; i < batch; i++) {
        for (int c = 0; c < callsPerSample; c++) {
          call.run();
        }
        events[i + 1].record(stream);
      }
      events[batch].synchronize();
      for (int i = 0; i < batch; i++) {
        micros[done + i] = 1000.0 * events[i + 1].elapsedMillisSince(events[i]) / callsPerSample;
      }
      done += batch;
    }
  }

  /**
   * Replays {@code graph} {@code replays} times; writes the time per captured call (a replay's time
   * divided by {@code callsPerReplay}) in microseconds into {@code micros}.
   */
  public void timeReplays(
      Graph graph, Stream stream, int replays, int callsPerReplay, double[] micros) {
    int done = 0;
    while (done < replays) {
      int batch = Math.min(BATCH, replays - done);
      events[0].record(stream);
      for (int i = 0; i < batch; i++) {
        graph.replay(stream);
        events[i + 1].record(stream);
      }
      events[batch].synchronize();
      for (int i = 0; i < batch; i++) {
        micros[done + i] = 1000.0 * events[i + 1].elapsedMillisSince(events[i]) / callsPerReplay;
      }
      done += batch;
    }
  }

  /** The median of the first {@code count} values (sorts them in place). */
  public static double median(double[] values, int count) {
    Arrays.sort(values, 0, count);
    return count % 2 == 1 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
  }

  /**
   * The interquartile range of the first {@code count} values (sorts them in place): how far a
   * rank's calls stray from their median, without the one call a page fault made slow.
   */
  public static double interquartileRange(double[] values, int count) {
    Arrays.sort(values, 0, count);
    return values[(3 * (count - 1)) / 4] - values[(count - 1) / 4];
  }

  @Override
  public void close() {
    for (int i = events.length - 1; i >= 0; i--) {
      try {
        events[i].close();
      } catch (RuntimeException e) {
        // Keep closing the rest; the device reports leaks when it closes.
      }
    }
  }
}
