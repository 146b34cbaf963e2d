package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.Tensor;

/**
 * A program a CommJob can run: its unpipelined host IR (the reference that passes rewrite), the
 * data of its inputs on every rank, and the exact value of every output element, so that any rank
 * validates its results without the other ranks' data.
 */
public sealed interface HostProgram
    permits RowParallelLinear, ColumnParallelLinear, CollectivePermuteProgram {

  static HostProgram of(ProgramSettings settings, int worldSize) {
    return switch (settings.name()) {
      case ROW_PARALLEL_LINEAR -> new RowParallelLinear(settings, worldSize);
      case COLUMN_PARALLEL_LINEAR -> new ColumnParallelLinear(settings, worldSize);
      case COLLECTIVE_PERMUTE -> new CollectivePermuteProgram(settings, worldSize);
    };
  }

  ProgramName name();

  ProgramSettings settings();

  /** The program without passes: the reference the passes' results are checked against. */
  Program build();

  /** The output that is validated and compared. */
  default Tensor output() {
    return build().outputs().getFirst();
  }

  /** Element {@code localIndex} of input number {@code input} on rank {@code rank}. */
  float input(int input, int rank, long localIndex);

  /** The exact value of output element {@code localIndex} on rank {@code rank}. */
  ExactValue expected(int rank, long localIndex);

  /** The error allowed between an output element and its exact value. */
  ErrorBound errorBound();

  /**
   * An upper bound of the magnitude sum of any output element, for comparing two computed outputs
   * element by element where the exact values are not computed.
   */
  double magnitudeSumBound();

  /** Iterations of the program's stream-parallel loop: chunks of tokens, or one per rank. */
  int chunks();

  /** Floating-point operations one rank performs per run (0 for pure data movement). */
  double flopsPerRank();

  /** Bytes one rank receives from other ranks per run. */
  double bytesReceivedPerRank();
}
