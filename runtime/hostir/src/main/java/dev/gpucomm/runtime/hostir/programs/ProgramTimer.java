package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.hostir.interp.HostIrInterpreter;
import java.util.Arrays;

/**
 * Times runs of a program with device events recorded on its main stream around each run: the end
 * event follows the join of every worker stream, so it marks the end of all the run's work. Before
 * each timed run, when it has one, the alignment lines the ranks up (untimed), so that no rank's
 * time includes waiting for a rank whose host started it later.
 */
final class ProgramTimer implements AutoCloseable {
  private final Stream stream;
  private final RankAlignment alignment;
  private final Event start;
  private final Event end;

  ProgramTimer(Device device, Stream stream, RankAlignment alignment) {
    this.stream = stream;
    this.alignment = alignment;
    this.start = device.createEvent();
    Event created;
    try {
      created = device.createEvent();
    } catch (RuntimeException e) {
      start.close();
      throw e;
    }
    this.end = created;
  }

  /** Runs {@code warmup} untimed runs, then returns the median of {@code iterations} timed runs. */
  double medianMillis(HostIrInterpreter interpreter, int warmup, int iterations) {
    for (int run = 0; run < warmup; run++) {
      interpreter.run(stream);
    }
    stream.synchronize();
    double[] millis = new double[iterations];
    for (int run = 0; run < iterations; run++) {
      alignRanks(stream);
      start.record(stream);
      interpreter.run(stream);
      end.record(stream);
      end.synchronize();
      millis[run] = end.elapsedMillisSince(start);
    }
    Arrays.sort(millis);
    int middle = iterations / 2;
    return iterations % 2 == 1 ? millis[middle] : (millis[middle - 1] + millis[middle]) / 2;
  }

  /** Queues the rank alignment on {@code on}, when there is one. */
  void alignRanks(Stream on) {
    if (alignment != null) {
      alignment.align(on);
    }
  }

  @Override
  public void close() {
    end.close();
    start.close();
  }
}
