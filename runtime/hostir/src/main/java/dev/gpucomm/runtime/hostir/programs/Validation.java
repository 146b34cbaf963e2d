package dev.gpucomm.runtime.hostir.programs;

/**
 * How a rank's outputs compared: the pipelined output against the unpipelined one element by
 * element, and both against exact (float64) values on a sample of elements.
 *
 * @param elementsCompared output elements compared between the two forms
 * @param mismatches elements where the two forms differ by more than twice the error bound
 * @param maxDifference the largest |pipelined − unpipelined|
 * @param maxDifferenceOverTolerance the largest difference divided by its tolerance (≤ 1 passes)
 * @param exactSamples elements of each form checked against their exact value
 * @param maxErrorOverBound the largest |computed − exact| divided by the error bound, over both
 *     forms (≤ 1 passes)
 * @param maxRelativeError the largest |computed − exact| relative to the sum of the magnitudes of
 *     the terms of the element (Σ|aᵢbᵢ| for a matmul, |x| for a copy), over both forms
 * @param failure what went wrong, in one line; null when passed
 */
public record Validation(
    boolean passed,
    long elementsCompared,
    long mismatches,
    double maxDifference,
    double maxDifferenceOverTolerance,
    int exactSamples,
    double maxErrorOverBound,
    double maxRelativeError,
    String failure) {}
