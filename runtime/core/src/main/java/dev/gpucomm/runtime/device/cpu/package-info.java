/**
 * The CPU device backend: the host standing in for each rank's GPU, so that everything above the
 * device layer runs and is tested without one.
 *
 * <p>How the CUDA concepts map:
 *
 * <ul>
 *   <li>device memory: off-heap memory of a shared {@link java.lang.foreign.Arena} ({@link
 *       dev.gpucomm.runtime.device.cpu.CpuBuffer}); the device pointer is the segment's address;
 *   <li>IPC memory: a file under /dev/shm (or java.io.tmpdir) mapped into the process ({@link
 *       dev.gpucomm.runtime.device.cpu.CpuSharedBuffer}); the IPC handle carries the file's path,
 *       and peers map it once per allocation ({@link
 *       dev.gpucomm.runtime.device.cpu.CpuPeerBuffer});
 *   <li>stream: a daemon worker thread with an in-order queue ({@link
 *       dev.gpucomm.runtime.device.cpu.CpuStream}); a kernel launch is {@link
 *       dev.gpucomm.runtime.device.cpu.CpuStream#launch} of a {@link
 *       dev.gpucomm.runtime.device.cpu.CpuKernel};
 *   <li>event: a marker kernel that notes when it ran ({@link
 *       dev.gpucomm.runtime.device.cpu.CpuEvent});
 *   <li>graph: the kernels a stream recorded instead of running them, replayed in order ({@link
 *       dev.gpucomm.runtime.device.cpu.CpuGraph});
 *   <li>cuBLAS: a blocked, multi-threaded fp32-accumulating matmul.
 * </ul>
 */
package dev.gpucomm.runtime.device.cpu;
