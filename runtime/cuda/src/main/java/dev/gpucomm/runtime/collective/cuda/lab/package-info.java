/**
 * Diagnostics and probes of the CUDA backend, run on a GPU host by hand or from {@code bench/}
 * ({@link dev.gpucomm.runtime.collective.cuda.lab.CudaDiagnostics}); the product does not depend on
 * this package.
 */
package dev.gpucomm.runtime.collective.cuda.lab;
