package dev.gpucomm.api.v1alpha1.report;

/** One algorithm's measured figures at one size, as exported to metrics. */
public record AlgorithmFigure(
    long bytes, String algorithm, double latencyMicros, double busBandwidthGBps) {}
