package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.ProgramSpec;
import dev.gpucomm.runtime.hostir.ir.Allocate;
import dev.gpucomm.runtime.hostir.ir.ForLoop;
import dev.gpucomm.runtime.hostir.ir.IfThenElse;
import dev.gpucomm.runtime.hostir.ir.IndexExpr;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.Statement;
import dev.gpucomm.runtime.hostir.ir.Tensor;
import dev.gpucomm.runtime.hostir.passes.PassOptions;
import dev.gpucomm.runtime.hostir.passes.Passes;
import dev.gpucomm.runtime.numeric.Saturating;
import dev.gpucomm.runtime.report.HumanUnits;
import dev.gpucomm.runtime.workload.RankMemory;
import java.util.List;
import java.util.stream.Stream;

/**
 * The memory one rank of a program holds at its largest, read from the programs it will run, before
 * any rank starts: so that a shape that cannot fit is refused up front rather than filling the host
 * or the device. A rank runs its forms one at a time, each in an interpreter of its own:
 *
 * <ul>
 *   <li>on the device, the largest form's buffers: its inputs, and every tensor it allocates, once
 *       per iteration of the loops around the allocation (iterations that may run at once on
 *       different streams never share a buffer);
 *   <li>on the host, the inputs it generates and the two outputs it downloads to check (unpipelined
 *       and pipelined).
 * </ul>
 *
 * Communicators' own buffers are fixed in size and not counted, as for the sweeps. Sizes saturate,
 * so a shape whose bytes would wrap around is refused as too large.
 */
final class ProgramMemory {
  private ProgramMemory() {}

  /**
   * The memory of one rank of {@code spec} in a world of {@code worldSize} on {@code device}.
   *
   * @throws ProgramSpecException when the spec cannot run, naming the field
   */
  static RankMemory of(ProgramSpec spec, DeviceKind device, int worldSize) {
    ProgramSettings settings = ProgramSettings.resolve(spec, device, worldSize);
    try {
      return of(settings, worldSize);
    } catch (ArithmeticException beyondAnyMachine) {
      // a size the program itself cannot count (a tensor of 2^64 elements)
      return new RankMemory(
          "the program's buffers (more bytes than can be counted)", Long.MAX_VALUE, Long.MAX_VALUE);
    }
  }

  private static RankMemory of(ProgramSettings settings, int worldSize) {
    HostProgram program = HostProgram.of(settings, worldSize);
    Program reference = program.build();
    Program pipelined = reference;
    for (Passes.Step step :
        Passes.of(settings.passes(), new PassOptions(settings.streams())).steps(reference)) {
      pipelined = step.program();
    }
    long deviceBytes =
        Stream.of(
                reference,
                pipelined,
                ProgramVariants.computeOnly(pipelined),
                ProgramVariants.communicationOnly(pipelined))
            .mapToLong(ProgramMemory::deviceBytes)
            .max()
            .orElseThrow();
    long hostBytes =
        Saturating.sum(
            reference.inputs().stream().mapToLong(ProgramMemory::bytes).reduce(0, Saturating::sum),
            Saturating.product(2, bytes(reference.outputs().getFirst())));
    return new RankMemory(
        "the program's buffers (%s on the device, %s on the host, per rank of %d)"
            .formatted(
                HumanUnits.binaryBytes(deviceBytes), HumanUnits.binaryBytes(hostBytes), worldSize),
        deviceBytes,
        hostBytes);
  }

  /** The device memory of one form: its inputs and all it allocates. */
  static long deviceBytes(Program form) {
    long inputs = form.inputs().stream().mapToLong(ProgramMemory::bytes).reduce(0, Saturating::sum);
    return Saturating.sum(inputs, allocated(form.body(), form.teamSize()));
  }

  private static long allocated(List<Statement> statements, int teamSize) {
    long bytes = 0;
    for (Statement statement : statements) {
      bytes =
          Saturating.sum(
              bytes,
              switch (statement) {
                case Allocate allocate -> bytes(allocate.tensor());
                case ForLoop loop ->
                    Saturating.product(
                        iterations(loop, teamSize), allocated(loop.body(), teamSize));
                // each branch may be taken by some iteration: both are counted
                case IfThenElse branch ->
                    Saturating.sum(
                        allocated(branch.then(), teamSize),
                        allocated(branch.otherwise(), teamSize));
                default -> 0L;
              });
    }
    return bytes;
  }

  /**
   * The most iterations {@code loop} makes on any rank. Loop bounds are constants or depend on the
   * rank; a bound that depends on an enclosing loop's index is taken at that index's first value.
   */
  private static long iterations(ForLoop loop, int teamSize) {
    long most = 0;
    for (int rank = 0; rank < teamSize; rank++) {
      IndexExpr.Environment environment = atRank(rank);
      most =
          Math.max(
              most,
              Math.max(0, loop.stop().evaluate(environment) - loop.start().evaluate(environment)));
    }
    return most;
  }

  private static IndexExpr.Environment atRank(int rank) {
    return new IndexExpr.Environment() {
      @Override
      public long valueOf(IndexExpr.LoopIndex index) {
        return 0;
      }

      @Override
      public int rank() {
        return rank;
      }
    };
  }

  private static long bytes(Tensor tensor) {
    try {
      return tensor.localBytes();
    } catch (ArithmeticException tooLarge) {
      return Long.MAX_VALUE;
    }
  }
}
