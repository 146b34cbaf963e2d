package dev.gpucomm.api.v1alpha1.report;

/**
 * The Regressed condition's status ({@value #TRUE}, {@value #FALSE}, {@value #UNKNOWN}), reason and
 * message.
 */
public record RegressionVerdict(String status, String reason, String message) {
  public static final String TRUE = "True";
  public static final String FALSE = "False";
  public static final String UNKNOWN = "Unknown";

  public static final String SLOWER_THAN_BASELINE = "SlowerThanBaseline";
  public static final String WITHIN_BASELINE = "WithinBaseline";
  public static final String NO_COMMON_SIZES = "NoCommonSizes";
  public static final String MISSING_SIZES = "MissingSizes";
  public static final String NOT_COMPARABLE = "NotComparable";
}
