package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Stream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where the time of an all-reduce call goes on this GPU: while a timeline is attached ({@link
 * IpcAllReduce#attachTimeline}), each call records timed events at named steps on whichever stream
 * runs the step (the caller's, the host path's copy streams); {@link #report} gives, per step, the
 * median time from the call's first mark, and the median time from one call's first mark to the
 * next's. A diagnostic: recording events costs a little device time itself.
 */
public final class CallTimeline implements AutoCloseable {
  private final Device device;
  private final List<Map<String, Event>> calls = new ArrayList<>();

  public CallTimeline(Device device) {
    this.device = device;
  }

  /** Starts a call: its first mark, on {@code stream}, is the origin of its steps. */
  void beginCall(Stream stream) {
    calls.add(new LinkedHashMap<>());
    mark("call", stream);
  }

  /** Records step {@code name} of the current call on {@code stream}. */
  void mark(String name, Stream stream) {
    if (calls.isEmpty()) {
      return;
    }
    Event event = device.createEvent();
    event.record(stream);
    Event previous = calls.get(calls.size() - 1).put(name, event);
    if (previous != null) {
      previous.close();
    }
  }

  /**
   * Per step, the median microseconds after the call's first mark over the recorded calls (the
   * first {@code skip} left out as warm-up), and the median call-to-call period. Waits for the
   * device.
   */
  public String report(int skip) {
    if (calls.size() <= skip + 1) {
      return "timeline: too few calls";
    }
    StringBuilder text = new StringBuilder();
    text.append(String.format(Locale.ROOT, "  %-22s %9.1f us%n", "period", medianPeriod(skip)));
    for (String step : calls.get(skip).keySet()) {
      double[] offsets = offsets(step, skip);
      text.append(
          String.format(
              Locale.ROOT,
              "  %-22s %9.1f us (min %.1f, max %.1f)%n",
              step,
              median(offsets),
              Arrays.stream(offsets).min().orElse(Double.NaN),
              Arrays.stream(offsets).max().orElse(Double.NaN)));
    }
    return text.toString();
  }

  /** Median microseconds from one call's first mark to the next's, after {@code skip} calls. */
  double medianPeriod(int skip) {
    synchronizeAll();
    double[] periods = new double[Math.max(0, calls.size() - skip - 1)];
    for (int i = skip; i < calls.size() - 1; i++) {
      periods[i - skip] =
          1e3 * calls.get(i + 1).get("call").elapsedMillisSince(calls.get(i).get("call"));
    }
    return median(periods);
  }

  /** Microseconds from each call's first mark to its {@code step}, after {@code skip} calls. */
  double[] offsets(String step, int skip) {
    synchronizeAll();
    double[] offsets = new double[Math.max(0, calls.size() - skip)];
    int n = 0;
    for (int i = skip; i < calls.size(); i++) {
      Event event = calls.get(i).get(step);
      if (event != null) {
        offsets[n++] = 1e3 * event.elapsedMillisSince(calls.get(i).get("call"));
      }
    }
    return Arrays.copyOf(offsets, n);
  }

  private void synchronizeAll() {
    for (Map<String, Event> call : calls) {
      for (Event event : call.values()) {
        event.synchronize();
      }
    }
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted.length == 0 ? Double.NaN : sorted[sorted.length / 2];
  }

  @Override
  public void close() {
    for (Map<String, Event> call : calls) {
      call.values().forEach(Event::close);
    }
    calls.clear();
  }
}
