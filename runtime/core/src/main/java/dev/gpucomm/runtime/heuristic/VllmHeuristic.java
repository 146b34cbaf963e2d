package dev.gpucomm.runtime.heuristic;

import static dev.gpucomm.runtime.report.HumanUnits.binaryBytes;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.runtime.device.ComputeCapability;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * vLLM's all-reduce dispatch (custom all-reduce, then torch symmetric memory, then NCCL), by
 * compute capability and world size, as in vLLM's "Enable Torch Symmetric Memory All-Reduce By
 * Default" change.
 *
 * <p>For a message of {@code bytes} per rank:
 *
 * <ol>
 *   <li>custom all-reduce when {@code bytes % 16 == 0} and {@code bytes < customLimit[cc][world]}
 *       (strictly below, as vLLM's {@code should_custom_ar}); inside it, world 2 → 1-stage;
 *       otherwise 1-stage when {@code (world ≤ 4 and bytes < 512 KiB) or (world ≤ 8 and bytes < 256
 *       KiB)}, else 2-stage. 1-stage runs as gpucomm's {@code oneshot}, 2-stage as {@code twoshot};
 *   <li>else the symmetric-memory path when {@code bytes % 4 == 0} and {@code bytes <
 *       symmMemLimit[cc][world]} (strictly below, as vLLM's {@code should_use_symm_mem} at the time
 *       of that change). gpucomm has no separate symmetric-memory algorithm: this range runs as
 *       {@code twoshot}, which is what PyTorch's symmetric-memory two-shot all-reduce does (and the
 *       multimem variant needs NVLink multicast, which gpucomm does not use);
 *   <li>else nccl.
 * </ol>
 *
 * <p>Limits (MiB): custom all-reduce cc 9.0 {2: 64, 4: 32, 6: 0.5, 8: 0.25}, cc 10.0 {2: 2, 4: 2,
 * 6: 1, 8: 1}, cc 10.3 {2: 4, 4: 4, 6: 8, 8: 4}; symmetric memory cc 9.0 {2: 64, 4: 32, 6: 64, 8:
 * 64}, cc 10.0 {2: 8, 4: 32, 6: 128, 8: 128}, cc 10.3 {2: 4, 4: 32, 6: 32, 8: 64}. (vLLM's code
 * also clamps the custom all-reduce limit to its default 8 MiB buffer; that clamp is a buffer-size
 * choice of vLLM's, not a measured crossover, and is not modelled here: the H100 figures of vLLM's
 * PR show 1-stage winning at world 2 up to 64 MB.)
 *
 * <p>Fallbacks, each stated in the decision's reason:
 *
 * <ul>
 *   <li>no compute capability (the CPU backend): the cc 9.0 tables;
 *   <li>a compute capability without a table: the nearest lower one's (10.1 → 10.0, 12.0 → 10.3);
 *       below 9.0, vLLM's behaviour without a table: custom all-reduce up to its default 8 MiB
 *       buffer and no symmetric-memory path;
 *   <li>world sizes other than 2, 4, 6, 8: vLLM disables both custom paths → nccl; world 1 has
 *       nothing to exchange → oneshot;
 *   <li>a job spanning pods: nccl or hierarchical, as {@link AcrossPods} rules (vLLM's custom paths
 *       work within one node); no IPC algorithm available → nccl. Availability of oneshot/twoshot
 *       stands for vLLM's "fully connected" check: gpucomm offers IPC algorithms only among ranks
 *       whose every pair passed an IPC check;
 *   <li>collectives other than all-reduce → nccl (vLLM runs them through NCCL).
 * </ul>
 */
public final class VllmHeuristic implements AlgorithmHeuristic {
  private static final long KIB = 1L << 10;
  private static final long MIB = 1L << 20;

  /** vLLM's default custom all-reduce buffer, the limit where it has no table. */
  public static final long DEFAULT_CUSTOM_ALL_REDUCE_LIMIT = 8 * MIB;

  /** World sizes vLLM's custom all-reduce supports. */
  public static final Set<Integer> CUSTOM_ALL_REDUCE_WORLD_SIZES = Set.of(2, 4, 6, 8);

  /** The size limits for one compute capability, in bytes per world size. */
  public record Limits(
      ComputeCapability computeCapability,
      Map<Integer, Long> customAllReduce,
      Map<Integer, Long> symmetricMemory) {}

  /** vLLM's tables, ordered by compute capability. */
  public static final List<Limits> TABLES =
      List.of(
          new Limits(
              new ComputeCapability(9, 0),
              Map.of(2, 64 * MIB, 4, 32 * MIB, 6, MIB / 2, 8, MIB / 4),
              Map.of(2, 64 * MIB, 4, 32 * MIB, 6, 64 * MIB, 8, 64 * MIB)),
          new Limits(
              new ComputeCapability(10, 0),
              Map.of(2, 2 * MIB, 4, 2 * MIB, 6, MIB, 8, MIB),
              Map.of(2, 8 * MIB, 4, 32 * MIB, 6, 128 * MIB, 8, 128 * MIB)),
          new Limits(
              new ComputeCapability(10, 3),
              Map.of(2, 4 * MIB, 4, 4 * MIB, 6, 8 * MIB, 8, 4 * MIB),
              Map.of(2, 4 * MIB, 4, 32 * MIB, 6, 32 * MIB, 8, 64 * MIB)));

  @Override
  public String name() {
    return "vllm";
  }

  @Override
  public Decision choose(SizeQuery query) {
    Optional<Decision> settled =
        IpcRuleGate.settled(
            name(),
            "vLLM's custom and symmetric-memory all-reduce",
            query,
            collective -> "vLLM runs " + collective + " on NCCL → nccl");
    if (settled.isPresent()) {
      return settled.get();
    }
    int world = query.worldSize();
    if (!CUSTOM_ALL_REDUCE_WORLD_SIZES.contains(world)) {
      return settle(
          query,
          Algorithm.NCCL,
          "vLLM's custom and symmetric-memory all-reduce support world sizes 2, 4, 6, 8, not "
              + world
              + " → nccl");
    }

    TableChoice table = tableFor(query.computeCapability());
    long bytes = query.bytes();
    String size = bytes + " B (" + binaryBytes(bytes) + ")";
    long customLimit =
        table
            .limits()
            .map(limits -> limits.customAllReduce().get(world))
            .orElse(DEFAULT_CUSTOM_ALL_REDUCE_LIMIT);
    String customLimitText =
        "custom all-reduce limit " + binaryBytes(customLimit) + " for world " + world;
    String prefix = table.description() + ": ";

    if (bytes % 16 == 0 && bytes < customLimit) {
      String inside = prefix + size + " < " + customLimitText + " → custom all-reduce, ";
      if (world == 2) {
        return settle(query, Algorithm.ONESHOT, inside + "world 2 → 1-stage → oneshot");
      }
      boolean oneStage = (world <= 4 && bytes < 512 * KIB) || (world <= 8 && bytes < 256 * KIB);
      String rule =
          "(world ≤ 4 and bytes < 512 KiB) or (world ≤ 8 and bytes < 256 KiB) is "
              + oneStage
              + " for world "
              + world;
      return oneStage
          ? settle(query, Algorithm.ONESHOT, inside + rule + " → 1-stage → oneshot")
          : settle(query, Algorithm.TWOSHOT, inside + rule + " → 2-stage → twoshot");
    }
    String notCustom =
        bytes % 16 != 0
            ? size + " is not a multiple of 16 B (custom all-reduce needs that)"
            : size + " ≥ " + customLimitText;
    Optional<Long> symmLimit = table.limits().map(limits -> limits.symmetricMemory().get(world));
    if (symmLimit.isEmpty()) {
      return settle(
          query,
          Algorithm.NCCL,
          prefix + notCustom + "; no symmetric-memory path without a table → nccl");
    }
    String symmLimitText =
        "symmetric-memory limit " + binaryBytes(symmLimit.get()) + " for world " + world;
    if (bytes % 4 == 0 && bytes < symmLimit.get()) {
      return settle(
          query,
          Algorithm.TWOSHOT,
          prefix
              + notCustom
              + "; "
              + size
              + " < "
              + symmLimitText
              + " → symmetric-memory path, run as twoshot");
    }
    String notSymm =
        bytes % 4 != 0
            ? size + " is not a multiple of 4 B (symmetric memory needs that)"
            : size + " ≥ " + symmLimitText;
    return settle(query, Algorithm.NCCL, prefix + notCustom + "; " + notSymm + " → nccl");
  }

  private Decision settle(SizeQuery query, Algorithm preferred, String reason) {
    return Decisions.settle(name(), query, preferred, reason);
  }

  /** The table for a compute capability, and how it was found. */
  static TableChoice tableFor(Optional<ComputeCapability> computeCapability) {
    Limits hopper = TABLES.getFirst();
    if (computeCapability.isEmpty()) {
      return new TableChoice(
          Optional.of(hopper),
          "no compute capability (cpu backend): using vLLM's cc "
              + hopper.computeCapability()
              + " tables");
    }
    ComputeCapability cc = computeCapability.get();
    Limits nearestLower = null;
    for (Limits limits : TABLES) {
      if (limits.computeCapability().compareTo(cc) <= 0) {
        nearestLower = limits;
      }
    }
    if (nearestLower == null) {
      return new TableChoice(
          Optional.empty(),
          "cc "
              + cc
              + " has no vLLM table: custom all-reduce up to vLLM's default "
              + binaryBytes(DEFAULT_CUSTOM_ALL_REDUCE_LIMIT)
              + " buffer");
    }
    if (nearestLower.computeCapability().equals(cc)) {
      return new TableChoice(Optional.of(nearestLower), "cc " + cc);
    }
    return new TableChoice(
        Optional.of(nearestLower),
        "cc "
            + cc
            + " has no vLLM table: using the nearest lower, cc "
            + nearestLower.computeCapability());
  }

  /** A table (none below cc 9.0) and the words that say which one and why. */
  record TableChoice(Optional<Limits> limits, String description) {}
}
