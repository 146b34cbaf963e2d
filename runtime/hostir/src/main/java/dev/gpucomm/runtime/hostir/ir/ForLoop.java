package dev.gpucomm.runtime.hostir.ir;

import java.util.List;

/**
 * {@code for index in [start, stop): body}. A stream-parallel loop's iterations are independent
 * (each works on its own chunk of the stream axis), which is what lets {@code assignStreams} give
 * them different streams. The index is bound only inside the body.
 */
public record ForLoop(
    IndexExpr.LoopIndex index,
    IndexExpr start,
    IndexExpr stop,
    List<Statement> body,
    boolean streamParallel)
    implements Statement {
  public ForLoop {
    body = List.copyOf(body);
  }

  public ForLoop withBody(List<Statement> newBody) {
    return new ForLoop(index, start, stop, newBody, streamParallel);
  }
}
