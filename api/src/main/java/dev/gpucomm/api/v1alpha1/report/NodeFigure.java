package dev.gpucomm.api.v1alpha1.report;

/**
 * One node's figure for per-node metrics: the slowest median of its ranks at the largest size of a
 * benchmark, or its median pair bandwidth in a fabric sweep (null where the report has none).
 */
public record NodeFigure(String node, Double latencyMicros, Double bandwidthGBps) {}
