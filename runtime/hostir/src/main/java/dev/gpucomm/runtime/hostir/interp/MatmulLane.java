package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Stream;

/**
 * Keeps the matmuls of a partitioned run (with serializeMatmuls) one after another in program
 * order, whichever worker stream each is posted on: before a matmul its stream waits for the
 * previous matmul's event, after it the stream records one.
 *
 * <p>Why: the iterations of a stream-parallel loop have no data dependence between their matmuls,
 * so on separate streams chunk i+1's and i+2's matmuls start together with chunk i's, take every SM
 * between them, and chunk i's communication, which comes after chunk i's matmul on its stream,
 * waits until they are all done: the loop computes first and communicates afterwards. With the
 * matmuls in one lane on their share of the SMs, chunk i's communication runs beside chunk i+1's
 * matmul on the SMs kept for it, which is the overlap the pipeline is for. Results are unchanged:
 * the lane adds ordering, never removes it.
 */
final class MatmulLane {
  private final DeviceResources.EventsByStream events;
  private Event previous;
  private Stream previousStream;

  MatmulLane(DeviceResources resources) {
    this.events = resources.eventsByStream();
  }

  /** Makes {@code stream} wait for the previous matmul when that ran on another stream. */
  void enter(Stream stream) {
    if (previous != null && previousStream != stream) {
      stream.waitFor(previous);
    }
  }

  /** Marks the end of the matmul just posted on {@code stream}. */
  void leave(Stream stream) {
    Event done = events.on(stream);
    done.record(stream);
    previous = done;
    previousStream = stream;
  }
}
