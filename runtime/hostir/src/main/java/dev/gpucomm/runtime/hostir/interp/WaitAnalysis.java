package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.hostir.ir.Communication;
import dev.gpucomm.runtime.hostir.ir.ForLoop;
import dev.gpucomm.runtime.hostir.ir.IfThenElse;
import dev.gpucomm.runtime.hostir.ir.SetCurrentStream;
import dev.gpucomm.runtime.hostir.ir.Statement;
import dev.gpucomm.runtime.hostir.ir.Wait;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which Waits are satisfied by stream order alone: a Wait on a communication posted earlier in the
 * same block, with no change of the current stream in between, runs on the stream the communication
 * is on. Only the others need an event recorded after posting.
 */
final class WaitAnalysis {
  private WaitAnalysis() {}

  /** For each statement of a block, whether it is a Wait certain to run on its posting stream. */
  static boolean[] waitsOnTheirOwnStream(List<Statement> statements) {
    boolean[] sameStream = new boolean[statements.size()];
    Set<Integer> postedOnThisStream = new HashSet<>();
    for (int index = 0; index < statements.size(); index++) {
      Statement statement = statements.get(index);
      if (changesStream(statement)) {
        postedOnThisStream.clear();
      }
      if (statement instanceof Communication communication) {
        postedOnThisStream.add(communication.id());
      }
      sameStream[index] = statement instanceof Wait(int id) && postedOnThisStream.contains(id);
    }
    return sameStream;
  }

  /** The communications that some Wait may wait for from another stream. */
  static Set<Integer> crossStreamWaits(List<Statement> statements) {
    Set<Integer> crossStream = new HashSet<>();
    collect(statements, crossStream);
    return crossStream;
  }

  private static void collect(List<Statement> statements, Set<Integer> crossStream) {
    boolean[] sameStream = waitsOnTheirOwnStream(statements);
    for (int index = 0; index < statements.size(); index++) {
      boolean waitOnItsStream = sameStream[index];
      switch (statements.get(index)) {
        case Wait(int id) when !waitOnItsStream -> crossStream.add(id);
        case ForLoop loop -> collect(loop.body(), crossStream);
        case IfThenElse branch -> {
          collect(branch.then(), crossStream);
          collect(branch.otherwise(), crossStream);
        }
        default -> {}
      }
    }
  }

  private static boolean changesStream(Statement statement) {
    return switch (statement) {
      case SetCurrentStream ignored -> true;
      case ForLoop loop -> loop.body().stream().anyMatch(WaitAnalysis::changesStream);
      case IfThenElse branch ->
          branch.then().stream().anyMatch(WaitAnalysis::changesStream)
              || branch.otherwise().stream().anyMatch(WaitAnalysis::changesStream);
      default -> false;
    };
  }
}
