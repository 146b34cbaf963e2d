package dev.gpucomm.api.v1alpha1.report;

import java.util.List;

/**
 * The GPU-pair matrix of one node (one pod): copy bandwidth from row GPU to column GPU one way and
 * both ways at once, the latency of a small copy, and each GPU copying within its own memory as the
 * reference. Entries are null on the diagonal and where a pair was not measured.
 *
 * @param ranks the global rank of each row and column, in local-rank order
 */
public record NodeMatrix(
    int pod,
    String node,
    List<Integer> ranks,
    List<List<Double>> oneWayGBps,
    List<List<Double>> bidirectionalGBps,
    List<List<Double>> latencyMicros,
    List<Double> localCopyGBps) {

  public NodeMatrix {
    ranks = List.copyOf(ranks);
    oneWayGBps = Matrices.copy(oneWayGBps);
    bidirectionalGBps = Matrices.copy(bidirectionalGBps);
    latencyMicros = Matrices.copy(latencyMicros);
    localCopyGBps = Matrices.copyRow(localCopyGBps);
  }
}
