package dev.gpucomm.runtime.heuristic;

import static dev.gpucomm.runtime.report.HumanUnits.atLeastOneDecimal;
import static dev.gpucomm.runtime.report.HumanUnits.trimmed;

import dev.gpucomm.api.v1alpha1.Algorithm;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

/**
 * FlashInfer's (TensorRT-LLM's) one-shot/two-shot rule for all-reduce, from FlashInfer PR 1972.
 *
 * <p>The rule: {@code commMB = tokens × hidden × 2 × world × dtypeBytes / 2^20}; one-shot when
 * {@code commMB ≤ threshold[world]} with thresholds {2: 512, 4: 64, 8: 42} (measured on B200;
 * fusion pattern and fp32 accumulation made no difference). When a query carries no token count,
 * {@code tokens × hidden × dtypeBytes} is the per-rank tensor, i.e. {@link SizeQuery#bytes()}, so
 * {@code commMB = bytes × 2 × world / 2^20}.
 *
 * <p>Two further limits, as in FlashInfer: one-shot is refused when {@code tokens × hidden ×
 * dtypeBytes × world} exceeds {@link #ONESHOT_MAX_COMM_BYTES} (the int32 limit rounded down to a
 * multiple of 2 MiB); two-shot needs more tokens than ranks, so with {@code tokens ≤ world}
 * one-shot is used whatever the size. Without a token count, tokens are the whole rows in the
 * tensor, {@code bytes / (hidden × dtypeBytes)}.
 *
 * <p><b>World sizes not in the table</b> (FlashInfer has only 2, 4 and 8, and would fail with a
 * KeyError): the threshold of the nearest listed world size <em>at or above</em> it is used (world
 * 3 takes 4's 64, world 6 takes 8's 42), and above the largest listed world size, the largest's
 * (world 16 takes 8's 42). One-shot moves {@code world − 1} full copies into every rank, so its
 * cost grows with the world size and its crossover shrinks; borrowing the next larger world's
 * threshold errs towards two-shot, which degrades gracefully near the crossover, whereas one-shot
 * past its crossover gets slower in proportion to the world size. A single rank (world 1) has
 * nothing to exchange: one-shot (a local copy) is chosen.
 *
 * <p>The rule needs the IPC algorithms among ranks of one node: when the job spans pods, {@link
 * AcrossPods} chooses between nccl and hierarchical and says that the rule did not apply; when
 * neither oneshot nor twoshot is available, it chooses nccl and says why. It covers all-reduce
 * only; other collectives get nccl. A pick the communicator cannot run is replaced along oneshot →
 * twoshot → nccl → ring.
 */
public final class TrtllmHeuristic implements AlgorithmHeuristic {
  /** FlashInfer's one-shot thresholds in commMB per world size (B200). */
  public static final Map<Integer, Double> FLASHINFER_THRESHOLDS_MB =
      Map.of(2, 512.0, 4, 64.0, 8, 42.0);

  /** The largest one-shot communication, {@code tokens × hidden × dtypeBytes × world}, in bytes. */
  public static final long ONESHOT_MAX_COMM_BYTES = Integer.MAX_VALUE & ~((2L << 20) - 1);

  private static final double MIB = 1024.0 * 1024.0;

  private final NavigableMap<Integer, Double> thresholdsMb;

  /** The rule with FlashInfer's thresholds. */
  public TrtllmHeuristic() {
    this(FLASHINFER_THRESHOLDS_MB);
  }

  /**
   * The rule with other thresholds (commMB per world size), e.g. ones measured on another GPU.
   *
   * @throws IllegalArgumentException when the map is empty, a world size is below 1 or a threshold
   *     is negative or not finite
   */
  public TrtllmHeuristic(Map<Integer, Double> thresholdsMb) {
    if (thresholdsMb.isEmpty()) {
      throw new IllegalArgumentException("trtllm thresholds: at least one world size is needed");
    }
    thresholdsMb.forEach(
        (world, threshold) -> {
          if (world < 1 || !Double.isFinite(threshold) || threshold < 0) {
            throw new IllegalArgumentException(
                "trtllm thresholds: world " + world + " → " + threshold + " is not valid");
          }
        });
    this.thresholdsMb = new TreeMap<>(thresholdsMb);
  }

  @Override
  public String name() {
    return "trtllm";
  }

  /** The threshold (commMB) applied for {@code worldSize}, after the fallback for unlisted ones. */
  public double thresholdMb(int worldSize) {
    return threshold(worldSize).megabytes();
  }

  @Override
  public Decision choose(SizeQuery query) {
    Optional<Decision> settled =
        IpcRuleGate.settled(
            name(),
            "FlashInfer's one-shot/two-shot rule",
            query,
            collective -> "FlashInfer's rule covers allreduce only; " + collective + " → nccl");
    if (settled.isPresent()) {
      return settled.get();
    }
    int world = query.worldSize();

    int dtypeBytes = query.dtype().bytes();
    long rowBytes = (long) query.hiddenSize() * dtypeBytes;
    boolean tokensKnown = query.tokens().isPresent() && query.hiddenSize() > 0;
    long tokens;
    long perRankBytes;
    String inputs;
    if (tokensKnown) {
      tokens = query.tokens().getAsInt();
      perRankBytes = tokens * rowBytes;
      inputs =
          "tokens "
              + tokens
              + " × hidden "
              + query.hiddenSize()
              + " × 2 × world "
              + world
              + " × "
              + dtypeBytes
              + " B / 2^20";
    } else {
      perRankBytes = query.bytes();
      tokens = rowBytes > 0 ? perRankBytes / rowBytes : perRankBytes / dtypeBytes;
      inputs = "bytes " + perRankBytes + " × 2 × world " + world + " / 2^20";
    }
    double commMb = perRankBytes * 2.0 * world / MIB;
    long oneshotCommBytes = perRankBytes * world;
    Threshold threshold = threshold(world);
    String comparison =
        inputs
            + " = commMB "
            + atLeastOneDecimal(commMb, 3)
            + (commMb <= threshold.megabytes() ? " ≤ " : " > ")
            + trimmed(threshold.megabytes(), 3)
            + " for world "
            + world
            + threshold.origin();
    boolean capExceeded = oneshotCommBytes > ONESHOT_MAX_COMM_BYTES;
    String cap =
        "one-shot refused: "
            + oneshotCommBytes
            + " B (per-rank bytes × world) exceeds the int32 cap "
            + ONESHOT_MAX_COMM_BYTES
            + " B";
    boolean twoshotPossible = tokens > world;
    String tokensNote =
        "two-shot needs tokens > world (tokens "
            + tokens
            + (tokensKnown ? "" : ", whole rows of hidden " + query.hiddenSize())
            + ", world "
            + world
            + ")";

    if (commMb <= threshold.megabytes() && !capExceeded) {
      return settle(query, Algorithm.ONESHOT, comparison + " → oneshot");
    }
    if (twoshotPossible) {
      return settle(
          query, Algorithm.TWOSHOT, comparison + (capExceeded ? "; " + cap : "") + " → twoshot");
    }
    if (!capExceeded) {
      return settle(query, Algorithm.ONESHOT, comparison + ", but " + tokensNote + " → oneshot");
    }
    return settle(
        query, Algorithm.NCCL, comparison + "; " + cap + ", and " + tokensNote + " → nccl");
  }

  private Decision settle(SizeQuery query, Algorithm preferred, String reason) {
    return Decisions.settle(name(), query, preferred, reason);
  }

  private Threshold threshold(int world) {
    Double listed = thresholdsMb.get(world);
    if (listed != null) {
      return new Threshold(listed, "");
    }
    Map.Entry<Integer, Double> above = thresholdsMb.ceilingEntry(world);
    if (above != null) {
      return new Threshold(
          above.getValue(),
          " (world "
              + world
              + " is not in the table "
              + thresholdsMb.keySet()
              + ": using the next larger world "
              + above.getKey()
              + "'s threshold)");
    }
    Map.Entry<Integer, Double> largest = thresholdsMb.lastEntry();
    return new Threshold(
        largest.getValue(),
        " (world "
            + world
            + " is not in the table "
            + thresholdsMb.keySet()
            + ": using the largest listed world "
            + largest.getKey()
            + "'s threshold)");
  }

  /** A threshold and, for unlisted world sizes, where it was borrowed from. */
  private record Threshold(double megabytes, String origin) {}
}
