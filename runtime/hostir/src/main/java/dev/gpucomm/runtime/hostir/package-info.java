/**
 * Host IR: programs that run on the host of each rank and enqueue matmuls and communications on
 * device streams, the passes that pipeline them, and the workloads built on them (the nvFuser half
 * of gpucomm).
 *
 * <ul>
 *   <li>{@link dev.gpucomm.runtime.hostir.ir} holds the program: a closed set of statements (sealed
 *       {@code Statement}, records), symbolic tensors and index expressions, and {@code
 *       HostIrPrinter}, which writes programs in nvFuser's {@code %HostIrContainer { ... }} form.
 *   <li>{@link dev.gpucomm.runtime.hostir.passes} holds the passes a CommJob names in {@code
 *       spec.workload.program.passes}: {@code assignStreams}, {@code collectivePermuteAllgather},
 *       {@code broadcastAllgather}, {@code p2pRingPipeline}; each is a pure function from program
 *       to program.
 *   <li>{@link dev.gpucomm.runtime.hostir.interp} runs a program on any {@code Device} and its
 *       communicators: one communicator per worker stream, memory and streams created once per
 *       program instance, IPC point-to-point over the get protocol where the device has stream
 *       memory operations.
 *   <li>{@link dev.gpucomm.runtime.hostir.programs} holds the programs ({@code rowParallelLinear},
 *       {@code columnParallelLinear}, {@code collectivePermute}) and {@code HostIrProgramWorkload},
 *       the {@code program} workload of the rank flow: it runs each program with and without its
 *       passes, validates, times and reports.
 * </ul>
 *
 * <p>{@link dev.gpucomm.runtime.hostir.HostIrDump} prints a job's program before and after each
 * pass, as {@code gpucomm run --dump-ir} shows it.
 */
package dev.gpucomm.runtime.hostir;
