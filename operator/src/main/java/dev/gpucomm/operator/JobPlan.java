package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import java.util.Optional;

/**
 * The operator's decision for one reconciliation: the job as it runs (its spec frozen at start),
 * what was observed, the outcome, and the layout (absent when the spec is invalid). Dependents read
 * it from the reconciliation context.
 */
public record JobPlan(
    CommJob job, JobObservation observation, JobOutcome outcome, Optional<JobLayout> layout) {}
