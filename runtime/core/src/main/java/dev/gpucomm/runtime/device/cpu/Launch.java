package dev.gpucomm.runtime.device.cpu;

/**
 * One entry of a stream's queue or of a captured graph: a kernel and the name its failure reports.
 *
 * @param runsAfterFailure markers (event records) still run after an earlier kernel of the stream
 *     failed, so that nothing waiting on them hangs; ordinary kernels are skipped until the failure
 *     is reported
 */
record Launch(String name, CpuKernel kernel, boolean runsAfterFailure) {}
