package dev.gpucomm.api.v1alpha1.report;

import dev.gpucomm.api.v1alpha1.Algorithm;

/**
 * An algorithm the sweep could not run at one size, and why (e.g. a rank could not allocate the
 * buffers); the report shows it as {@code n/a} and the sweep went on.
 */
public record NotMeasured(Algorithm algorithm, String reason) {}
