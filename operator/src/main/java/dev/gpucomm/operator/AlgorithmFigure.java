package dev.gpucomm.operator;

/** One algorithm's measured figures at one size, as exported to Prometheus. */
public record AlgorithmFigure(
    long bytes, String algorithm, double latencyMicros, double busBandwidthGBps) {}
