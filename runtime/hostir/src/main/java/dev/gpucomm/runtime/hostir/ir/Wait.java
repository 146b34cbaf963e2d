package dev.gpucomm.runtime.hostir.ir;

/**
 * Makes the current stream wait until communication {@code communicationId} is complete (for an IPC
 * send: until the peer has finished reading the buffer). The host never blocks.
 */
public record Wait(int communicationId) implements Statement {}
