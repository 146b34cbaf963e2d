package dev.gpucomm.runtime.fabric;

import java.util.List;

/**
 * One GPU's row of its node's pair matrix: copy bandwidth to each local peer one way and both ways
 * at once (GB/s), the time of a small copy to each (µs), null for itself, and its local copy.
 */
public record GpuPairRow(
    int rank,
    List<Double> oneWayGBps,
    List<Double> bidirectionalGBps,
    List<Double> latencyMicros,
    double localCopyGBps) {}
