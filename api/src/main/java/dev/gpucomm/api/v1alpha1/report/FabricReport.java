package dev.gpucomm.api.v1alpha1.report;

import java.util.List;

/**
 * The result of a fabric sweep, as rank 0 gathers it: who every rank was, one GPU-pair matrix per
 * node with more than one GPU, and the pod × pod matrix when the job spans pods. Serialized as
 * report.json (kind {@code fabric}, schema {@value #SCHEMA_VERSION}).
 *
 * @param interNode null when the job runs in one pod
 */
public record FabricReport(
    int schemaVersion,
    String job,
    int worldSize,
    int ranksPerPod,
    String device,
    String deviceName,
    long bytes,
    int iterations,
    double slowFraction,
    String startedAt,
    List<RankIdentity> ranks,
    List<NodeMatrix> intraNode,
    PodMatrix interNode)
    implements Report {
  public static final int SCHEMA_VERSION = 1;

  public FabricReport {
    ranks = List.copyOf(ranks);
    intraNode = List.copyOf(intraNode);
  }
}
