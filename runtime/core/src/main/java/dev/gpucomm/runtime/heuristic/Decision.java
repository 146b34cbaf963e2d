package dev.gpucomm.runtime.heuristic;

import dev.gpucomm.api.v1alpha1.Algorithm;

/** The algorithm a heuristic chose and why, in words a log reader understands. */
public record Decision(Algorithm algorithm, String reason) {}
