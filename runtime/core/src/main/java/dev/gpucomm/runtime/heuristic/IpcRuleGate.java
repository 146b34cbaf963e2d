package dev.gpucomm.runtime.heuristic;

import static dev.gpucomm.runtime.report.HumanUnits.binaryBytes;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import java.util.Optional;
import java.util.function.Function;

/**
 * The cases that the published IPC all-reduce rules (TensorRT-LLM's, vLLM's) settle before their
 * own thresholds: other collectives, a world of one, a world across pods, no IPC algorithm, and a
 * message larger than the IPC workspace (upstream has no passes: such a message goes to NCCL).
 */
final class IpcRuleGate {

  private IpcRuleGate() {}

  /**
   * The decision for {@code query} when one of those cases applies, else empty and the rule's
   * thresholds decide.
   *
   * @param heuristic the heuristic's name, recorded in the decision
   * @param rule the rule as a reason names it across pods
   * @param otherCollective the reason for a collective other than all-reduce, which runs on nccl
   * @throws IllegalArgumentException when the world size is below 1
   */
  static Optional<Decision> settled(
      String heuristic,
      String rule,
      SizeQuery query,
      Function<Collective, String> otherCollective) {
    int world = query.worldSize();
    if (world < 1) {
      throw new IllegalArgumentException("worldSize must be at least 1, got " + world);
    }
    if (query.collective() != Collective.ALLREDUCE) {
      return Optional.of(
          Decisions.settle(
              heuristic, query, Algorithm.NCCL, otherCollective.apply(query.collective())));
    }
    if (world == 1) {
      return Optional.of(
          Decisions.settle(
              heuristic, query, Algorithm.ONESHOT, "world 1: nothing to exchange → oneshot"));
    }
    if (AcrossPods.applies(query)) {
      return Optional.of(AcrossPods.choose(heuristic, rule, query));
    }
    if (!query.available().contains(Algorithm.ONESHOT)
        && !query.available().contains(Algorithm.TWOSHOT)) {
      return Optional.of(
          Decisions.settle(
              heuristic,
              query,
              Algorithm.NCCL,
              "the IPC algorithms (oneshot, twoshot) are not available here → nccl"));
    }
    if (query.bytes() > query.ipcWorkspaceBytes()) {
      return Optional.of(
          Decisions.settle(
              heuristic,
              query,
              Algorithm.NCCL,
              binaryBytes(query.bytes())
                  + " is more than the "
                  + binaryBytes(query.ipcWorkspaceBytes())
                  + " IPC workspace, and "
                  + rule
                  + " runs its IPC kernels only on messages that fit → nccl"));
    }
    return Optional.empty();
  }
}
