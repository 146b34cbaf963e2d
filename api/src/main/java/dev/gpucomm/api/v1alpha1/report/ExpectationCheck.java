package dev.gpucomm.api.v1alpha1.report;

import dev.gpucomm.api.v1alpha1.Expectation;
import dev.gpucomm.api.v1alpha1.ExpectedSize;
import dev.gpucomm.api.v1alpha1.SizeSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The acceptance rule: every spec.expect floor or ceiling holds for the figure it names (the
 * fastest algorithm at the size, or the algorithm the rule names); a rule whose figure was not
 * measured gives no verdict rather than a pass.
 */
public final class ExpectationCheck {
  private ExpectationCheck() {}

  /** The verdict of {@code rules} on {@code report}; rule {@code i} is named spec.expect[i]. */
  public static ExpectationVerdict verdict(List<Expectation> rules, ReportSummary report) {
    List<String> failing = new ArrayList<>();
    List<String> unmeasured = new ArrayList<>();
    for (int i = 0; i < rules.size(); i++) {
      Expectation rule = rules.get(i);
      String name = "spec.expect[%d] (%s)".formatted(i, describe(rule));
      Optional<Figure> figure = figure(rule, report);
      if (figure.isEmpty()) {
        unmeasured.add(name + ": not measured");
        continue;
      }
      Figure measured = figure.get();
      if (rule.getMinBusBandwidthGBps() != null
          && measured.busBandwidthGBps() < rule.getMinBusBandwidthGBps()) {
        failing.add(
            String.format(
                Locale.ROOT,
                "%s: %s reached %.1f GB/s, below %s GB/s",
                name,
                measured.algorithm(),
                measured.busBandwidthGBps(),
                trim(rule.getMinBusBandwidthGBps())));
      }
      if (rule.getMaxLatencyMicros() != null
          && measured.latencyMicros() > rule.getMaxLatencyMicros()) {
        failing.add(
            String.format(
                Locale.ROOT,
                "%s: %s took %.2f us, above %s us",
                name,
                measured.algorithm(),
                measured.latencyMicros(),
                trim(rule.getMaxLatencyMicros())));
      }
    }
    if (!failing.isEmpty()) {
      failing.addAll(unmeasured);
      return new ExpectationVerdict(
          RegressionVerdict.FALSE,
          ExpectationVerdict.NOT_MET,
          "%d of %d rules not met: %s"
              .formatted(failing.size(), rules.size(), String.join("; ", failing)));
    }
    if (!unmeasured.isEmpty()) {
      return new ExpectationVerdict(
          RegressionVerdict.UNKNOWN,
          ExpectationVerdict.NOT_MEASURED,
          String.join("; ", unmeasured));
    }
    return new ExpectationVerdict(
        RegressionVerdict.TRUE,
        ExpectationVerdict.ALL_MET,
        "all %d rules met".formatted(rules.size()));
  }

  private record Figure(String algorithm, double latencyMicros, double busBandwidthGBps) {}

  private static Optional<Figure> figure(Expectation rule, ReportSummary report) {
    if (rule.getCollective() == null
        || !rule.getCollective().wireName().equals(report.collective())) {
      return Optional.empty();
    }
    var bytes = ExpectedSize.bytes(rule.getBytes());
    if (bytes.isEmpty()) {
      return Optional.empty();
    }
    if (rule.getAlgorithm() == null) {
      return report.sizes().stream()
          .filter(size -> size.getBytes() != null && size.getBytes() == bytes.getAsLong())
          .filter(size -> size.getLatencyMicros() != null && size.getBusBandwidthGBps() != null)
          .findFirst()
          .map(ExpectationCheck::bestOf);
    }
    return report.figures().stream()
        .filter(f -> f.bytes() == bytes.getAsLong())
        .filter(f -> f.algorithm().equals(rule.getAlgorithm().wireName()))
        .findFirst()
        .map(f -> new Figure(f.algorithm(), f.latencyMicros(), f.busBandwidthGBps()));
  }

  private static Figure bestOf(SizeSummary size) {
    return new Figure(size.getBest(), size.getLatencyMicros(), size.getBusBandwidthGBps());
  }

  private static String describe(Expectation rule) {
    List<String> parts = new ArrayList<>();
    parts.add(rule.getCollective() == null ? "?" : rule.getCollective().wireName());
    parts.add(rule.getBytes());
    if (rule.getAlgorithm() != null) {
      parts.add(rule.getAlgorithm().wireName());
    }
    return String.join(" ", parts);
  }

  private static String trim(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }
}
