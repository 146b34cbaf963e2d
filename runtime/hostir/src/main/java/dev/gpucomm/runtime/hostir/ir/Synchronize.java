package dev.gpucomm.runtime.hostir.ir;

/**
 * Makes the current stream wait for the work enqueued so far on {@code stream}: an event is
 * recorded on {@code stream} and the current stream waits for it. The host never blocks.
 */
public record Synchronize(StreamRef stream) implements Statement {}
