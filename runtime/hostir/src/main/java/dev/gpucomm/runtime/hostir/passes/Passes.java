package dev.gpucomm.runtime.hostir.passes;

import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.runtime.hostir.ir.Program;
import java.util.ArrayList;
import java.util.List;

/** The passes a job names, in order, and the programs they produce one after another. */
public record Passes(List<Pass> passes) {
  public Passes {
    passes = List.copyOf(passes);
  }

  /** The pass called {@code name} in a CommJob. */
  public static Pass of(PassName name, PassOptions options) {
    return switch (name) {
      case ASSIGN_STREAMS -> new AssignStreams(options.streams());
      case COLLECTIVE_PERMUTE_ALLGATHER -> new CollectivePermuteAllgather();
      case BROADCAST_ALLGATHER -> new BroadcastAllgather();
      case P2P_RING_PIPELINE -> new P2pRingPipeline();
    };
  }

  public static Passes of(List<PassName> names, PassOptions options) {
    return new Passes(names.stream().map(name -> of(name, options)).toList());
  }

  public Program apply(Program program) {
    Program result = program;
    for (Pass pass : passes) {
      result = pass.apply(result);
    }
    return result;
  }

  /** One step per pass: the program after it, for dumps. */
  public List<Step> steps(Program program) {
    List<Step> steps = new ArrayList<>();
    Program current = program;
    for (Pass pass : passes) {
      Program next = pass.apply(current);
      steps.add(new Step(pass.name(), next, !next.equals(current)));
      current = next;
    }
    return steps;
  }

  /** The program after {@code pass}, and whether the pass changed anything. */
  public record Step(PassName pass, Program program, boolean changed) {}
}
