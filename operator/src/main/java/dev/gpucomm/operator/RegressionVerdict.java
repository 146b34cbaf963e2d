package dev.gpucomm.operator;

/** The Regressed condition's status (True, False, Unknown), reason and message. */
public record RegressionVerdict(String status, String reason, String message) {}
