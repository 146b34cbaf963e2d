package dev.gpucomm.runtime.hostir.interp;

/**
 * How a GPU's streaming multiprocessors are split on worker streams, so that a communication can
 * run beside a matmul instead of waiting for it: matmuls posted on worker streams plan for {@code
 * matmulMultiprocessors}, and the worker streams' communicators launch at most {@code
 * communicationBlocks} thread blocks (CTAs) per kernel; with {@code matmulsInOrder} the matmuls
 * also run one after another in program order ({@link MatmulLane}). Work on the main stream keeps
 * every SM. {@link #NONE} splits nothing; {@link #IN_ORDER} splits nothing but orders the matmuls.
 */
public record SmPartition(
    int multiprocessors,
    int matmulMultiprocessors,
    int communicationBlocks,
    boolean matmulsInOrder) {
  public static final SmPartition NONE = new SmPartition(0, 0, 0, false);

  /** No split of the SMs, but the worker streams' matmuls one after another in program order. */
  public static final SmPartition IN_ORDER = new SmPartition(0, 0, 0, true);

  public SmPartition {
    boolean none = multiprocessors == 0 && matmulMultiprocessors == 0 && communicationBlocks == 0;
    if (!none
        && (matmulMultiprocessors < 1
            || communicationBlocks < 1
            || matmulMultiprocessors + communicationBlocks != multiprocessors)) {
      throw new IllegalArgumentException(
          "an SM partition splits "
              + multiprocessors
              + " multiprocessors into at least 1 for matmuls and 1 for communication, got "
              + matmulMultiprocessors
              + " and "
              + communicationBlocks);
    }
  }

  /**
   * {@code communicationSMs} of a GPU's {@code multiprocessors} kept for communication, the rest
   * for matmuls.
   */
  public static SmPartition keeping(
      int communicationSMs, int multiprocessors, boolean matmulsInOrder) {
    return new SmPartition(
        multiprocessors, multiprocessors - communicationSMs, communicationSMs, matmulsInOrder);
  }

  public boolean partitioned() {
    return multiprocessors > 0;
  }

  /** Whether the pipelined run does anything differently from a plain one. */
  public boolean changesAnything() {
    return partitioned() || matmulsInOrder;
  }

  /** E.g. "matmuls on 100 of 132 SMs, communication limited to 32 CTAs". */
  public String description() {
    if (!partitioned() && matmulsInOrder) {
      return "matmuls one after another on every SM";
    }
    return partitioned()
        ? "matmuls on "
            + matmulMultiprocessors
            + " of "
            + multiprocessors
            + " SMs"
            + (matmulsInOrder ? " one after another" : "")
            + ", communication limited to "
            + communicationBlocks
            + " CTAs"
        : "no SM partition";
  }
}
