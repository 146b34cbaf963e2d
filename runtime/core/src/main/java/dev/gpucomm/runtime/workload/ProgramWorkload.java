package dev.gpucomm.runtime.workload;

/**
 * A host-IR program workload ({@code spec.workload.kind: program}). Implemented by the host-IR
 * module and found through {@link java.util.ServiceLoader}, so the runtime core does not depend on
 * it: register the implementation in {@code
 * META-INF/services/dev.gpucomm.runtime.workload.ProgramWorkload}.
 */
public interface ProgramWorkload extends RankWorkload {}
