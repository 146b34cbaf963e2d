package dev.gpucomm.api.v1alpha1.report;

import java.util.List;

/**
 * The pod × pod matrix of the fabric sweep: bandwidth in GB/s from the row pod to the column pod
 * (the median of the timed transfers; null on the diagonal), measured pair by pair in {@code
 * rounds} rounds of a round-robin schedule.
 *
 * @param nodes the node of each pod, by pod index
 */
public record PodMatrix(
    List<String> nodes, List<List<Double>> bandwidthGBps, int rounds, double seconds) {

  public PodMatrix {
    nodes = List.copyOf(nodes);
    bandwidthGBps = Matrices.copy(bandwidthGBps);
  }

  /** The slower direction of the pair, or null when either was not measured. */
  public Double pairGBps(int a, int b) {
    Double there = bandwidthGBps.get(a).get(b);
    Double back = bandwidthGBps.get(b).get(a);
    return there == null || back == null ? null : Math.min(there, back);
  }
}
