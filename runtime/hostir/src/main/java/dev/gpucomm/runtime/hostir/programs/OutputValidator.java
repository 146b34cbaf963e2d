package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.numeric.ElementCodec;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/**
 * Compares a rank's pipelined output with its unpipelined one element by element, and both with
 * exact values on a sample (every element of small outputs): any difference beyond the program's
 * error bound fails the run.
 */
final class OutputValidator {
  static final int SAMPLES = 256;
  static final long CHECK_ALL_BELOW = 4096;
  private static final int BLOCK = 1 << 16;

  private final HostProgram program;

  OutputValidator(HostProgram program) {
    this.program = program;
  }

  Validation validate(int rank, MemorySegment unpipelined, MemorySegment pipelined) {
    DType dtype = program.output().dtype();
    ElementCodec codec = ElementCodec.of(dtype);
    ErrorBound bound = program.errorBound();
    long elements = unpipelined.byteSize() / dtype.bytes();
    if (pipelined.byteSize() != unpipelined.byteSize()) {
      return failed(0, 0, "the pipelined output has another size than the unpipelined one");
    }

    // Element by element: both forms lie within the bound of the exact value, so they lie within
    // twice the bound of each other (the bound taken at the magnitude-sum limit of the data).
    double magnitudeLimit = program.magnitudeSumBound();
    float[] left = new float[BLOCK];
    float[] right = new float[BLOCK];
    long mismatches = 0;
    long firstMismatch = -1;
    double maxDifference = 0;
    double maxDifferenceOverTolerance = 0;
    for (long start = 0; start < elements; start += BLOCK) {
      int length = (int) Math.min(BLOCK, elements - start);
      codec.load(unpipelined, start, left, 0, length);
      codec.load(pipelined, start, right, 0, length);
      for (int index = 0; index < length; index++) {
        double difference = Math.abs((double) right[index] - left[index]);
        double tolerance = 2 * bound.bound(left[index], magnitudeLimit);
        if (!(difference <= tolerance)) {
          mismatches++;
          if (firstMismatch < 0) {
            firstMismatch = start + index;
          }
        }
        maxDifference = Math.max(maxDifference, difference);
        maxDifferenceOverTolerance =
            Math.max(maxDifferenceOverTolerance, ratio(difference, tolerance));
      }
    }

    // Against exact values: every element of small outputs, a fixed random sample of large ones.
    int samples = (int) Math.min(elements, elements < CHECK_ALL_BELOW ? elements : SAMPLES);
    SplittableRandom random = new SplittableRandom(0x5EEDL + rank);
    double maxErrorOverBound = 0;
    double maxRelativeError = 0;
    long worstSample = -1;
    for (int sample = 0; sample < samples; sample++) {
      long index = elements < CHECK_ALL_BELOW ? sample : random.nextLong(elements);
      ExactValue exact = program.expected(rank, index);
      double allowed = bound.bound(exact.value(), exact.magnitudeSum());
      for (MemorySegment output : new MemorySegment[] {unpipelined, pipelined}) {
        double error = Math.abs(codec.read(output, index) - exact.value());
        maxRelativeError = Math.max(maxRelativeError, ratio(error, exact.magnitudeSum()));
        double ratio = ratio(error, allowed);
        if (ratio > maxErrorOverBound) {
          maxErrorOverBound = ratio;
          worstSample = index;
        }
      }
    }

    String failure = null;
    if (mismatches > 0) {
      failure =
          mismatches
              + " of "
              + elements
              + " elements differ between the pipelined and unpipelined outputs beyond tolerance,"
              + " the first at element "
              + firstMismatch;
    } else if (!(maxErrorOverBound <= 1)) {
      failure =
          "element "
              + worstSample
              + " is "
              + maxErrorOverBound
              + " times the error bound away from its exact value";
    }
    return new Validation(
        failure == null,
        elements,
        mismatches,
        maxDifference,
        maxDifferenceOverTolerance,
        samples,
        maxErrorOverBound,
        maxRelativeError,
        failure);
  }

  private static double ratio(double error, double allowed) {
    if (allowed > 0) {
      return error / allowed;
    }
    return error == 0 ? 0 : Double.POSITIVE_INFINITY;
  }

  private static Validation failed(long elements, long mismatches, String failure) {
    return new Validation(false, elements, mismatches, 0, 0, 0, 0, 0, failure);
  }
}
