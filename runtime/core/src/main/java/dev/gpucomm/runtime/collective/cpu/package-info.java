/**
 * Collectives of the CPU backend over shared memory inside a pod and TCP between pods, built as the
 * GPU kernels are.
 *
 * <p>Each rank owns one shared buffer, mapped by the other ranks of its pod: a signal area of
 * 32-bit flags (each written by exactly one peer and polled only by the owner, with release/acquire
 * ordering) and a staging area. The one-shot and two-shot algorithms copy the input into the
 * staging area and read the peers' staging areas between flag barriers, whose epochs only grow and
 * which use separate flag sets for the start, middle and end barriers; they run only when the pod
 * is the whole job. The ring algorithms (the CPU stand-in for NCCL), hierarchical all-reduce and
 * send/receive move pieces through {@link dev.gpucomm.runtime.collective.cpu.MessageChannels}:
 * slots at the start of the sender's staging area inside a pod, one TCP connection per pair of
 * ranks between pods. Waits time out with a message naming the rank that did not come, and a rank
 * whose collective fails raises an abort flag (and closes its connections) so that its peers give
 * up at once.
 */
package dev.gpucomm.runtime.collective.cpu;
