package dev.gpucomm.api.v1alpha1.report;

import dev.gpucomm.api.v1alpha1.SizeSummary;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The regression rule: a report regressed against a baseline report when any size's best latency,
 * or any algorithm's latency at a size both measured, is slower by more than {@code
 * maxSlowdownPercent} (so that a slower NCCL does not hide behind a faster custom kernel); reports
 * of different setups, or without a common size, give no verdict.
 */
public final class BaselineComparison {
  private BaselineComparison() {}

  /**
   * The verdict on {@code current} against {@code reference}, the report of baseline {@code name}.
   */
  public static RegressionVerdict verdict(
      String baselineName,
      double maxSlowdownPercent,
      ReportSummary current,
      ReportSummary reference) {
    if (!Objects.equals(current.setup(), reference.setup())) {
      // a TP2 run against a TP4 baseline, eager against CUDA-graph times: any verdict would be
      // noise
      return new RegressionVerdict(
          RegressionVerdict.UNKNOWN,
          RegressionVerdict.NOT_COMPARABLE,
          "the report measures %s, baseline %s measures %s"
              .formatted(current.setup(), baselineName, reference.setup()));
    }
    Map<Long, Double> referenceMicros = new HashMap<>();
    for (SizeSummary size : reference.sizes()) {
      if (size.getLatencyMicros() != null) {
        referenceMicros.put(size.getBytes(), size.getLatencyMicros());
      }
    }
    List<String> slower = new ArrayList<>();
    int compared = 0;
    // a size the baseline measured and this run did not: the gate cannot vouch for it
    Set<Long> measuredNow =
        current.sizes().stream()
            .filter(size -> size.getLatencyMicros() != null)
            .map(SizeSummary::getBytes)
            .collect(Collectors.toSet());
    List<Long> missing =
        referenceMicros.keySet().stream().filter(b -> !measuredNow.contains(b)).sorted().toList();
    for (SizeSummary size : current.sizes()) {
      Double before = referenceMicros.get(size.getBytes());
      if (before == null || size.getLatencyMicros() == null || before <= 0) {
        continue;
      }
      compared++;
      double slowdownPercent = (size.getLatencyMicros() / before - 1) * 100;
      // compared as a product so that exactly the limit (11 us against 10 us at 10%) passes
      if (size.getLatencyMicros() > before * (1 + maxSlowdownPercent / 100)) {
        slower.add(
            String.format(
                Locale.ROOT,
                "%d B +%.1f%% (%.2f -> %.2f us)",
                size.getBytes(),
                slowdownPercent,
                before,
                size.getLatencyMicros()));
      }
    }
    if (slower.isEmpty() && compared > 0 && !missing.isEmpty()) {
      return new RegressionVerdict(
          RegressionVerdict.UNKNOWN,
          RegressionVerdict.MISSING_SIZES,
          "%d of baseline %s's sizes were not measured: %s"
              .formatted(
                  missing.size(),
                  baselineName,
                  missing.stream().map(b -> b + " B").collect(Collectors.joining(", "))));
    }
    if (compared == 0) {
      return new RegressionVerdict(
          RegressionVerdict.UNKNOWN,
          RegressionVerdict.NO_COMMON_SIZES,
          "the report and baseline %s share no measured size".formatted(baselineName));
    }
    String limit = String.format(Locale.ROOT, "%s%%", trim(maxSlowdownPercent));
    List<String> slowerAlgorithms = slowerAlgorithms(current, reference, maxSlowdownPercent);
    String algorithms =
        slowerAlgorithms.isEmpty()
            ? ""
            : "; %d algorithm figures slower by more than %s: %s"
                .formatted(slowerAlgorithms.size(), limit, String.join(", ", slowerAlgorithms));
    if (slower.isEmpty() && !slowerAlgorithms.isEmpty()) {
      return new RegressionVerdict(
          RegressionVerdict.TRUE,
          RegressionVerdict.SLOWER_THAN_BASELINE,
          "all %d sizes within %s of baseline %s (best latency per size)%s"
              .formatted(compared, limit, baselineName, algorithms));
    }
    if (slower.isEmpty()) {
      return new RegressionVerdict(
          RegressionVerdict.FALSE,
          RegressionVerdict.WITHIN_BASELINE,
          "all %d sizes within %s of baseline %s (best latency per size)"
              .formatted(compared, limit, baselineName));
    }
    return new RegressionVerdict(
        RegressionVerdict.TRUE,
        RegressionVerdict.SLOWER_THAN_BASELINE,
        "%d of %d sizes slower than baseline %s by more than %s (best latency per size): %s"
                .formatted(slower.size(), compared, baselineName, limit, String.join(", ", slower))
            + algorithms);
  }

  /**
   * Each algorithm other than auto measured at a size by both reports, slower by more than the
   * limit; the fastest algorithm of both reports at a size is left to the per-size check, which
   * already names it.
   */
  private static List<String> slowerAlgorithms(
      ReportSummary current, ReportSummary reference, double maxSlowdownPercent) {
    Map<String, Double> referenceMicros = new HashMap<>();
    for (AlgorithmFigure figure : reference.figures()) {
      referenceMicros.put(figure.bytes() + "/" + figure.algorithm(), figure.latencyMicros());
    }
    Map<Long, String> bestNow = best(current);
    Map<Long, String> bestBefore = best(reference);
    List<String> slower = new ArrayList<>();
    for (AlgorithmFigure figure : current.figures()) {
      if (figure.algorithm().equals("auto")) {
        continue;
      }
      if (figure.algorithm().equals(bestNow.get(figure.bytes()))
          && figure.algorithm().equals(bestBefore.get(figure.bytes()))) {
        continue;
      }
      Double before = referenceMicros.get(figure.bytes() + "/" + figure.algorithm());
      if (before == null || before <= 0) {
        continue;
      }
      if (figure.latencyMicros() > before * (1 + maxSlowdownPercent / 100)) {
        slower.add(
            String.format(
                Locale.ROOT,
                "%s at %d B +%.1f%% (%.2f -> %.2f us)",
                figure.algorithm(),
                figure.bytes(),
                (figure.latencyMicros() / before - 1) * 100,
                before,
                figure.latencyMicros()));
      }
    }
    return slower;
  }

  private static Map<Long, String> best(ReportSummary report) {
    Map<Long, String> best = new HashMap<>();
    for (SizeSummary size : report.sizes()) {
      if (size.getBest() != null) {
        best.put(size.getBytes(), size.getBest());
      }
    }
    return best;
  }

  private static String trim(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }
}
