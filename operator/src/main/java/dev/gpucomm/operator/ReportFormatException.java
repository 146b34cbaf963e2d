package dev.gpucomm.operator;

/** A report.json the operator cannot read; the message names the file and what is wrong. */
public class ReportFormatException extends Exception {
  public ReportFormatException(String message) {
    super(message);
  }
}
