package dev.gpucomm.runtime.hostir.ir;

/** Closes the group opened by {@link StartCoalescing}: its communications are posted now. */
public record EndCoalescing() implements Statement {}
