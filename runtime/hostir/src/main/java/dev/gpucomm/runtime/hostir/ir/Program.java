package dev.gpucomm.runtime.hostir.ir;

import java.util.List;

/**
 * A host program, the same on every rank of a team of {@code teamSize} ranks: its inputs (filled by
 * the caller before a run), its outputs and its statements.
 */
public record Program(
    int teamSize, List<Tensor> inputs, List<Tensor> outputs, List<Statement> body) {
  public Program {
    if (teamSize < 1) {
      throw new IllegalArgumentException("team size must be positive, got " + teamSize);
    }
    inputs = List.copyOf(inputs);
    outputs = List.copyOf(outputs);
    body = List.copyOf(body);
  }

  public Program withBody(List<Statement> newBody) {
    return new Program(teamSize, inputs, outputs, newBody);
  }
}
