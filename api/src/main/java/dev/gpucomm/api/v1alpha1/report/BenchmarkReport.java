package dev.gpucomm.api.v1alpha1.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.gpucomm.api.v1alpha1.AllReducePattern;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.DType;
import java.util.List;

/**
 * The result of one benchmark sweep, as rank 0 gathers it: what ran where, and one {@link
 * SizeResult} per size. Serialized as report.json (schema {@value #SCHEMA_VERSION}).
 *
 * @param inPlace whether each call's output was its input buffer (absent from reports written
 *     before the field existed, which read as false: out of place was all they ran)
 * @param fabric the transports NCCL chose, per rank and communicator (empty where nothing was
 *     recorded, and in reports written before the field existed)
 * @param ranks who every rank was (empty in reports written before the field existed)
 * @param rankTimings every rank's median and spread per size and algorithm (likewise)
 * @param outlierThresholdPercent how much slower than its peers a rank is flagged
 * @param pattern the fused pattern each all-reduce ran (null for the plain collective, as in
 *     reports written before the field existed)
 */
public record BenchmarkReport(
    int schemaVersion,
    String job,
    Collective collective,
    DType dtype,
    int hiddenSize,
    boolean inPlace,
    int worldSize,
    int ranksPerPod,
    String device,
    String deviceName,
    String host,
    String heuristic,
    String startedAt,
    List<SizeResult> sizes,
    List<RankIdentity> ranks,
    List<RankTiming> rankTimings,
    double outlierThresholdPercent,
    List<RankFabric> fabric,
    @JsonInclude(JsonInclude.Include.NON_NULL) AllReducePattern pattern)
    implements Report {
  public static final int SCHEMA_VERSION = 1;

  /** What reports written before the threshold was recorded are judged with. */
  public static final double DEFAULT_OUTLIER_THRESHOLD_PERCENT =
      CommJobDefaults.OUTLIER_THRESHOLD_PERCENT;

  public BenchmarkReport {
    sizes = List.copyOf(sizes);
    ranks = ranks == null ? List.of() : List.copyOf(ranks);
    rankTimings = rankTimings == null ? List.of() : List.copyOf(rankTimings);
    fabric = fabric == null ? List.of() : List.copyOf(fabric);
    if (pattern == AllReducePattern.ALLREDUCE) {
      pattern = null;
    }
  }

  /** Whether each all-reduce ran a fused residual-add + RMSNorm pattern around its sum. */
  public boolean fused() {
    return pattern != null && pattern.normalizes();
  }

  /** A report without per-rank figures or fabric, as reports written before them read. */
  public BenchmarkReport(
      int schemaVersion,
      String job,
      Collective collective,
      DType dtype,
      int hiddenSize,
      boolean inPlace,
      int worldSize,
      int ranksPerPod,
      String device,
      String deviceName,
      String host,
      String heuristic,
      String startedAt,
      List<SizeResult> sizes) {
    this(
        schemaVersion,
        job,
        collective,
        dtype,
        hiddenSize,
        inPlace,
        worldSize,
        ranksPerPod,
        device,
        deviceName,
        host,
        heuristic,
        startedAt,
        sizes,
        List.of(),
        List.of(),
        DEFAULT_OUTLIER_THRESHOLD_PERCENT,
        List.of(),
        null);
  }

  /** This report with who every rank was, their timings, and the threshold they are judged by. */
  public BenchmarkReport withRanks(
      List<RankIdentity> rankIdentities, List<RankTiming> timings, double thresholdPercent) {
    return new BenchmarkReport(
        schemaVersion,
        job,
        collective,
        dtype,
        hiddenSize,
        inPlace,
        worldSize,
        ranksPerPod,
        device,
        deviceName,
        host,
        heuristic,
        startedAt,
        sizes,
        rankIdentities,
        timings,
        thresholdPercent,
        fabric,
        pattern);
  }

  /** This report with {@code rankFabric} as its fabric section. */
  public BenchmarkReport withFabric(List<RankFabric> rankFabric) {
    return new BenchmarkReport(
        schemaVersion,
        job,
        collective,
        dtype,
        hiddenSize,
        inPlace,
        worldSize,
        ranksPerPod,
        device,
        deviceName,
        host,
        heuristic,
        startedAt,
        sizes,
        ranks,
        rankTimings,
        outlierThresholdPercent,
        rankFabric,
        pattern);
  }
}
