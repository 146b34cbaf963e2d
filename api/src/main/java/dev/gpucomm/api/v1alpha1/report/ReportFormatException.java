package dev.gpucomm.api.v1alpha1.report;

/** A report.json that cannot be read: the message names its source and the field at fault. */
public class ReportFormatException extends IllegalArgumentException {
  public ReportFormatException(String message) {
    super(message);
  }

  public ReportFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
