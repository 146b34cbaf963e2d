package dev.gpucomm.runtime.report.fetch;

import java.nio.file.Path;
import java.util.Optional;

/**
 * What {@code gpucomm report} was asked for: a report directory or a job's name, in which namespace
 * and cluster, in which form, printed or saved to a file.
 */
public record ReportRequest(
    String target,
    Optional<String> namespace,
    ReportFormat format,
    Optional<Path> output,
    Optional<Path> kubeconfig,
    Optional<String> context) {}
