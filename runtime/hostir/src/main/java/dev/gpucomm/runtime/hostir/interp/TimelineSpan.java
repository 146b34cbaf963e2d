package dev.gpucomm.runtime.hostir.interp;

/**
 * One statement's work in a traced run: on which stream it ran ({@code main} or {@code worker
 * <i>}), what it was (the statement, the tensor it wrote and the loop indices, e.g. {@code matmul
 * T5[i0=1]}), and when, in milliseconds of device time from the start of the run: from the moment
 * its stream reached it (after everything it waits for) to the moment its work was done.
 */
public record TimelineSpan(String stream, String what, double startMillis, double endMillis) {
  public double millis() {
    return endMillis - startMillis;
  }
}
