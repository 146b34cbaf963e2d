package dev.gpucomm.runtime.hostir.programs;

/** One rank's times and validation. */
public record RankResult(int rank, FormTimes times, Validation validation) {}
