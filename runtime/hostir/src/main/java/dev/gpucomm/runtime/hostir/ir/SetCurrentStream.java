package dev.gpucomm.runtime.hostir.ir;

/** Makes {@code stream} the stream that later statements enqueue their work on. */
public record SetCurrentStream(StreamRef stream) implements Statement {}
