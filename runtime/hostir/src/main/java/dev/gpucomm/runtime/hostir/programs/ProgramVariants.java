package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.runtime.hostir.ir.Communication;
import dev.gpucomm.runtime.hostir.ir.Copy;
import dev.gpucomm.runtime.hostir.ir.EndCoalescing;
import dev.gpucomm.runtime.hostir.ir.ForLoop;
import dev.gpucomm.runtime.hostir.ir.IfThenElse;
import dev.gpucomm.runtime.hostir.ir.Matmul;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.ShareMemHandles;
import dev.gpucomm.runtime.hostir.ir.StartCoalescing;
import dev.gpucomm.runtime.hostir.ir.Statement;
import dev.gpucomm.runtime.hostir.ir.Wait;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The halves of a pipelined program that its time split measures: the same program with only its
 * compute (matmuls), and with only its communication (communications and the copies that stand in
 * for them), each keeping the program's loops and streams. Their results are meaningless; only
 * their times are used.
 */
public final class ProgramVariants {
  private ProgramVariants() {}

  /** {@code program} without its communications: the matmuls alone. */
  public static Program computeOnly(Program program) {
    return program.withBody(
        keep(
            program.body(),
            statement ->
                !(statement instanceof Communication
                    || statement instanceof Wait
                    || statement instanceof ShareMemHandles
                    || statement instanceof StartCoalescing
                    || statement instanceof EndCoalescing
                    || statement instanceof Copy)));
  }

  /** {@code program} without its matmuls: the communication alone. */
  public static Program communicationOnly(Program program) {
    return program.withBody(keep(program.body(), statement -> !(statement instanceof Matmul)));
  }

  private static List<Statement> keep(List<Statement> statements, Predicate<Statement> kept) {
    List<Statement> result = new ArrayList<>();
    for (Statement statement : statements) {
      switch (statement) {
        case ForLoop loop -> result.add(loop.withBody(keep(loop.body(), kept)));
        case IfThenElse branch ->
            result.add(
                new IfThenElse(
                    branch.condition(), keep(branch.then(), kept), keep(branch.otherwise(), kept)));
        default -> {
          if (kept.test(statement)) {
            result.add(statement);
          }
        }
      }
    }
    return result;
  }
}
