package dev.gpucomm.api.v1alpha1.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Names what is slow in a fabric sweep. Between nodes, each pair's figure is its slower direction;
 * the reference is the median over nodes of each node's median pair, so that one slow node (which
 * drags half the pairs of a small cluster down) does not drag the reference with it. A pair below
 * {@code slowFraction} of the reference is slow; a node slow with at least half of its partners
 * (and two or more) is a slow node, and a slow pair without a slow node is a slow link. Inside a
 * node, a GPU pair whose one-way copy is below the fraction of the node's median pair is slow.
 */
public final class FabricJudge {
  private FabricJudge() {}

  public static FabricVerdict verdict(FabricReport report) {
    double fraction = report.slowFraction();
    List<String> nodes = new ArrayList<>();
    List<String> links = new ArrayList<>();
    List<String> gpuPairs = new ArrayList<>();
    List<String> details = new ArrayList<>();
    boolean comparable = false;
    PodMatrix pods = report.interNode();
    if (pods != null && pods.nodes().size() >= 3) {
      comparable = true;
      judgePods(pods, fraction, nodes, links, details);
    }
    for (NodeMatrix node : report.intraNode()) {
      comparable |= node.ranks().size() >= 3;
      judgeGpus(node, fraction, gpuPairs, details);
    }
    if (!details.isEmpty()) {
      String reason =
          !nodes.isEmpty()
              ? FabricVerdict.SLOW_NODE
              : !links.isEmpty() ? FabricVerdict.SLOW_LINK : FabricVerdict.SLOW_GPU_PAIR;
      return new FabricVerdict(
          RegressionVerdict.TRUE, reason, String.join("; ", details), nodes, links, gpuPairs);
    }
    if (!comparable) {
      return new FabricVerdict(
          RegressionVerdict.UNKNOWN,
          FabricVerdict.TOO_FEW_PAIRS,
          "a slow node needs three or more pods to tell from a slow link, a slow GPU pair three"
              + " or more GPUs of a node",
          nodes,
          links,
          gpuPairs);
    }
    return new FabricVerdict(
        RegressionVerdict.FALSE,
        FabricVerdict.FABRIC_HEALTHY,
        String.format(
            Locale.ROOT,
            "every pair within %s%% of its matrix's median%s",
            trim(fraction * 100),
            pods == null ? "" : " (" + pods.nodes().size() + " pods)"),
        nodes,
        links,
        gpuPairs);
  }

  private static void judgePods(
      PodMatrix pods, double fraction, List<String> nodes, List<String> links, List<String> out) {
    int n = pods.nodes().size();
    double[] nodeMedians = new double[n];
    for (int a = 0; a < n; a++) {
      List<Double> partners = new ArrayList<>();
      for (int b = 0; b < n; b++) {
        if (a != b && pods.pairGBps(a, b) != null) {
          partners.add(pods.pairGBps(a, b));
        }
      }
      nodeMedians[a] = median(partners);
    }
    double reference =
        median(Arrays.stream(nodeMedians).filter(v -> !Double.isNaN(v)).boxed().toList());
    if (!(reference > 0)) {
      return;
    }
    double floor = fraction * reference;
    boolean[] slowNode = new boolean[n];
    for (int a = 0; a < n; a++) {
      int measured = 0;
      int slow = 0;
      for (int b = 0; b < n; b++) {
        Double pair = a == b ? null : pods.pairGBps(a, b);
        if (pair != null) {
          measured++;
          if (pair < floor) {
            slow++;
          }
        }
      }
      if (slow >= 2 && 2 * slow >= measured) {
        slowNode[a] = true;
        String node = name(pods, a);
        nodes.add(node);
        out.add(
            String.format(
                Locale.ROOT,
                "node %s slow with %d of %d partners: median %s GB/s, %.0f%% of the fabric's %s"
                    + " GB/s",
                node,
                slow,
                measured,
                gbps(nodeMedians[a]),
                100 * nodeMedians[a] / reference,
                gbps(reference)));
      }
    }
    for (int a = 0; a < n; a++) {
      for (int b = a + 1; b < n; b++) {
        Double pair = pods.pairGBps(a, b);
        if (pair != null && pair < floor && !slowNode[a] && !slowNode[b]) {
          String link = name(pods, a) + " <-> " + name(pods, b);
          links.add(link);
          out.add(
              String.format(
                  Locale.ROOT,
                  "link %s slow: %s GB/s, %.0f%% of the fabric's %s GB/s",
                  link,
                  gbps(pair),
                  100 * pair / reference,
                  gbps(reference)));
        }
      }
    }
  }

  private static void judgeGpus(
      NodeMatrix node, double fraction, List<String> gpuPairs, List<String> out) {
    int n = node.ranks().size();
    List<Double> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        Double value = i == j ? null : node.oneWayGBps().get(i).get(j);
        if (value != null) {
          all.add(value);
        }
      }
    }
    if (n < 3 || all.isEmpty()) {
      return;
    }
    double reference = median(all);
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        Double value = i == j ? null : node.oneWayGBps().get(i).get(j);
        if (value != null && value < fraction * reference) {
          String pair = "%s GPU %d -> %d".formatted(node.node(), i, j);
          gpuPairs.add(pair);
          out.add(
              String.format(
                  Locale.ROOT,
                  "%s slow: %s GB/s, %.0f%% of the node's %s GB/s",
                  pair,
                  gbps(value),
                  100 * value / reference,
                  gbps(reference)));
        }
      }
    }
  }

  private static String name(PodMatrix pods, int pod) {
    return Objects.requireNonNullElse(pods.nodes().get(pod), "pod " + pod);
  }

  /** The median; NaN for no values. */
  static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static String gbps(double value) {
    return value >= 10
        ? String.format(Locale.ROOT, "%.0f", value)
        : String.format(Locale.ROOT, "%.2f", value);
  }

  private static String trim(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }
}
