package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.device.Stream;

/**
 * Where and how a communication was last posted, for its Wait: the stream, the peer (for a
 * point-to-point transfer), whether it still waits for the other half of its send/recv pair, and
 * the completion events recorded after posting when a Wait may run on another stream.
 */
final class PostRecord {
  final DeviceResources.EventsByStream completions;
  final boolean needsEvent;
  StreamSlot postedOn;
  int peer;
  boolean pending;

  PostRecord(DeviceResources.EventsByStream completions, boolean needsEvent) {
    this.completions = completions;
    this.needsEvent = needsEvent;
  }

  /** Notes that the communication is now enqueued on the current stream. */
  void posted(ExecutionState state) {
    postedOn = state.current;
    pending = false;
    if (needsEvent) {
      Stream stream = state.current.stream();
      completions.on(stream).record(stream);
    }
  }
}
