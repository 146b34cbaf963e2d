package dev.gpucomm.runtime.hostir.ir;

import java.util.List;

/** Runs {@code then} when the condition holds on this rank, else {@code otherwise}. */
public record IfThenElse(Condition condition, List<Statement> then, List<Statement> otherwise)
    implements Statement {
  public IfThenElse {
    then = List.copyOf(then);
    otherwise = List.copyOf(otherwise);
  }
}
