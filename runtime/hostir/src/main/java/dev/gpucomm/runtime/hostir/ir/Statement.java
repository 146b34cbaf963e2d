package dev.gpucomm.runtime.hostir.ir;

/**
 * One statement of a host program. The set is closed: memory ({@link Allocate}, {@link
 * ShardByStream}, {@link Copy}), control flow ({@link ForLoop}, {@link IfThenElse}), streams
 * ({@link GetCurrentStream}, {@link SetCurrentStream}, {@link Synchronize}), compute ({@link
 * Matmul}) and communication ({@link Communication}, {@link ShareMemHandles}, {@link Wait}, {@link
 * StartCoalescing}, {@link EndCoalescing}).
 */
public sealed interface Statement
    permits Allocate,
        ForLoop,
        IfThenElse,
        GetCurrentStream,
        SetCurrentStream,
        Synchronize,
        ShardByStream,
        Copy,
        Matmul,
        Communication,
        ShareMemHandles,
        Wait,
        StartCoalescing,
        EndCoalescing {}
