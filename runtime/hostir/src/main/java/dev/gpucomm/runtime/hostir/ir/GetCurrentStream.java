package dev.gpucomm.runtime.hostir.ir;

/** Stores the current stream in a variable, so that later statements can name it. */
public record GetCurrentStream(StreamRef.Named into) implements Statement {}
