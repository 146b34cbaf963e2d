package dev.gpucomm.api.v1alpha1.report;

import dev.gpucomm.api.v1alpha1.Collective;
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
    List<RankFabric> fabric)
    implements Report {
  public static final int SCHEMA_VERSION = 1;

  public BenchmarkReport {
    sizes = List.copyOf(sizes);
    fabric = fabric == null ? List.of() : List.copyOf(fabric);
  }

  /** A report without a fabric section (the CPU backend's, or one read from before it existed). */
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
        List.of());
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
        rankFabric);
  }
}
