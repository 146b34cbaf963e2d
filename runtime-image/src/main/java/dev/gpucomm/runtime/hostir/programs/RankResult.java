package dev.gpucomm.runtime.hostir.programs;

/** One rank's times and validation. */
public record RankResult(int rank, ProgramTimes times, Validation validation) {}
