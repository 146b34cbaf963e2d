/**
 * Collectives of the CPU backend over shared memory, built as the GPU kernels are.
 *
 * <p>Each rank owns one shared buffer: a signal area of 32-bit flags (each written by exactly one
 * peer and polled only by the owner, with release/acquire ordering) and a staging area. The
 * one-shot and two-shot algorithms copy the input into the staging area and read the peers' staging
 * areas between flag barriers, whose epochs only grow and which use separate flag sets for the
 * start, middle and end barriers. The ring algorithms (the CPU stand-in for NCCL) and send/receive
 * move pieces through point-to-point channels whose slots live at the start of the sender's staging
 * area. Waits time out with a message naming the rank that did not come, and a rank whose
 * collective fails raises an abort flag so that its peers give up at once.
 */
package dev.gpucomm.runtime.collective.cpu;
