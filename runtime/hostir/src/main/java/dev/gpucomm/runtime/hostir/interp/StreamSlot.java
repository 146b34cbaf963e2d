package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.device.Stream;

/** A stream as the interpreter sees it: the stream, and its worker index (-1 for the main one). */
record StreamSlot(Stream stream, int workerIndex) {}
