package dev.gpucomm.runtime.report.fetch;

import dev.gpucomm.api.v1alpha1.Algorithm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * What {@code gpucomm report} was asked for: a report directory or a job's name, in which namespace
 * and cluster, in which form (and, for the nccl-tests form, which algorithm), printed or saved to a
 * file, and how long reading the cluster may take.
 */
public record ReportRequest(
    String target,
    Optional<String> namespace,
    ReportFormat format,
    Algorithm algorithm,
    Optional<Path> output,
    Optional<Path> kubeconfig,
    Optional<String> context,
    Duration timeout) {}
