package dev.gpucomm.runtime.bench;

/**
 * One message size of a sweep: bytes per rank, the token count it came from (null for sizes given
 * in bytes) and the job field that named it, for error messages.
 */
public record SweepPoint(long bytes, Integer tokens, String field) {}
