package dev.gpucomm.runtime.hostir.programs;

/**
 * The exact (float64) value of one output element and the sum of the magnitudes of the terms it is
 * made of (Σ|aᵢbᵢ| for a dot product), which scales its rounding error.
 */
public record ExactValue(double value, double magnitudeSum) {}
