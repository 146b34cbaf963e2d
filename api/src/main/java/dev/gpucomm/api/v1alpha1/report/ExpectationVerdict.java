package dev.gpucomm.api.v1alpha1.report;

/**
 * The MeetsExpectations condition's status ({@code True}, {@code False}, {@code Unknown}), reason
 * and message.
 */
public record ExpectationVerdict(String status, String reason, String message) {
  public static final String ALL_MET = "AllExpectationsMet";
  public static final String NOT_MET = "ExpectationsNotMet";
  public static final String NOT_MEASURED = "ExpectationNotMeasured";
}
