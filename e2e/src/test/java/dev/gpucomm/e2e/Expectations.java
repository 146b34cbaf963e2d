package dev.gpucomm.e2e;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.SizeSummary;
import dev.gpucomm.runtime.heuristic.Heuristics;
import dev.gpucomm.runtime.heuristic.SizeQuery;
import java.util.EnumSet;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * What a job's heuristic should have chosen, asked of the heuristic itself with the job's query.
 */
final class Expectations {
  private Expectations() {}

  static String chosenByHeuristic(CommJobSpec spec, SizeSummary size) {
    var benchmark = spec.getWorkload().getBenchmark();
    // What the communicator offers auto: the device's algorithms, which the sweep measures all of.
    Set<Algorithm> available = EnumSet.noneOf(Algorithm.class);
    available.addAll(benchmark.getAlgorithms());
    available.remove(Algorithm.AUTO);
    SizeQuery query =
        new SizeQuery(
            benchmark.getCollective(),
            size.getBytes(),
            size.getTokens() == null ? OptionalInt.empty() : OptionalInt.of(size.getTokens()),
            benchmark.getHiddenSize(),
            Optional.ofNullable(benchmark.getDtype()).orElse(DType.BF16),
            spec.getWorldSize(),
            spec.getRanksPerPod(),
            Optional.empty(),
            available);
    return Heuristics.create(spec.getHeuristic(), ref -> null).choose(query).algorithm().wireName();
  }
}
