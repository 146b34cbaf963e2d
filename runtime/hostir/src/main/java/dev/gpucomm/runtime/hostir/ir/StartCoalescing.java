package dev.gpucomm.runtime.hostir.ir;

/** Opens a group of communications posted together (an NCCL group): send/recv pairs within it. */
public record StartCoalescing() implements Statement {}
