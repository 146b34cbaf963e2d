package dev.gpucomm.api.v1alpha1.report;

import dev.gpucomm.api.v1alpha1.Algorithm;

/**
 * One rank's own figures for one algorithm at one size: the median of its timed calls and their
 * spread (the interquartile range), before the ranks are merged into the slowest one.
 */
public record RankTiming(
    long bytes, Algorithm algorithm, int rank, double medianMicros, double spreadMicros) {}
