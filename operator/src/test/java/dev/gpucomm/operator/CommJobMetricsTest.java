package dev.gpucomm.operator;

import static dev.gpucomm.api.v1alpha1.report.TestReports.timing;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.RestartCause;
import dev.gpucomm.api.v1alpha1.report.ReportSummary;
import dev.gpucomm.api.v1alpha1.report.TestReports;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The series the operator exports for finished jobs: which, labelled how, and for how long. */
class CommJobMetricsTest {
  private static final String NODE_LATENCY = "gpucomm.job.node.latency";
  private static final String NODE_BANDWIDTH = "gpucomm.fabric.node.bandwidth";
  private static final String LATENCY = "gpucomm.job.latency";
  private static final String BUS_BANDWIDTH = "gpucomm.job.bus.bandwidth";

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final CommJobMetrics metrics = new CommJobMetrics(registry);

  @Test
  void restartsAreCountedByTheirKindOfFailure() {
    metrics.recordRestart(RestartCause.DISRUPTION);
    metrics.recordRestart(RestartCause.DISRUPTION);
    metrics.recordRestart(RestartCause.RANK_FAILED);

    assertThat(registry.get("gpucomm.restarts").tag("cause", "Disruption").counter().count())
        .isEqualTo(2.0);
    assertThat(registry.get("gpucomm.restarts").tag("cause", "RankFailed").counter().count())
        .isEqualTo(1.0);
  }

  @Test
  void aBenchmarksNodeGaugesNameTheNodesItsRanksRanOnWithTheSlowestRanksMedian() {
    metrics.recordSucceeded(job("sweep", "uid-1"), benchmarkOn("node-a", "node-a", "node-b"));

    assertThat(values(NODE_LATENCY, "sweep"))
        .containsExactlyInAnyOrderEntriesOf(Map.of("node-a", 80.0, "node-b", 78.0));
  }

  @Test
  void aFabricSweepsNodeGaugesNameEachPodsNodeWithItsMedianPair() {
    metrics.recordSucceeded(job("fabric", "uid-1"), fabricOf("node-a", "node-b", "node-c"));

    assertThat(values(NODE_BANDWIDTH, "fabric"))
        .containsExactlyInAnyOrderEntriesOf(Map.of("node-a", 9.5, "node-b", 5.5, "node-c", 6.0));
    assertThat(values(NODE_LATENCY, "fabric")).isEmpty();
  }

  @Test
  void jobSeriesAreLabelledOnlyByBoundedValues() {
    metrics.recordSucceeded(job("sweep", "uid-1"), benchmarkOn("node-a", "node-b"));
    metrics.recordSucceeded(job("fabric", "uid-2"), fabricOf("node-a", "node-b", "node-c"));

    Map<String, Set<String>> labelsByMetric =
        jobMeters()
            .collect(
                Collectors.groupingBy(
                    meter -> meter.getId().getName(),
                    Collectors.flatMapping(
                        meter -> meter.getId().getTags().stream().map(Tag::getKey),
                        Collectors.toSet())));
    Set<String> perFigure = Set.of("namespace", "job", "collective", "bytes", "algorithm");
    assertThat(labelsByMetric)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                LATENCY,
                perFigure,
                BUS_BANDWIDTH,
                perFigure,
                NODE_LATENCY,
                Set.of("namespace", "job", "node"),
                NODE_BANDWIDTH,
                Set.of("namespace", "job", "node")));
    // a size is a number, a node, job or namespace a Kubernetes name: no message or reason
    assertThat(jobMeters().flatMap(meter -> meter.getId().getTags().stream()))
        .allSatisfy(tag -> assertThat(tag.getValue()).matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?"));
  }

  @Test
  void aDeletedJobsSeriesGoAndAnotherJobsStay() {
    CommJob deleted = job("deleted", "uid-1");
    metrics.recordSucceeded(deleted, benchmarkOn("node-a", "node-b"));
    metrics.recordSucceeded(job("kept", "uid-2"), fabricOf("node-a", "node-b", "node-c"));

    metrics.forget(deleted);

    assertThat(jobMeters().filter(labelled("job", "deleted"))).isEmpty();
    assertThat(values(NODE_BANDWIDTH, "kept")).containsOnlyKeys("node-a", "node-b", "node-c");
  }

  @Test
  void theDeletionOfAnEarlierJobOfTheSameNameLeavesTheNewOnesSeries() {
    metrics.recordSucceeded(job("again", "uid-2"), benchmarkOn("node-a", "node-b"));

    metrics.forget(job("again", "uid-1"));

    assertThat(values(NODE_LATENCY, "again")).containsOnlyKeys("node-a", "node-b");
  }

  @Test
  void aJobCreatedAgainUnderTheSameNameDropsTheSeriesOfTheOneBefore() {
    metrics.recordSucceeded(job("again", "uid-1"), benchmarkOn("node-a", "node-b"));
    metrics.watch(new JobCache(job("again", "uid-2")));

    metrics.forgetDeletedJobs();

    assertThat(jobMeters().filter(labelled("job", "again"))).isEmpty();
  }

  private static CommJob job(String name, String uid) {
    CommJob job = new CommJob();
    job.setMetadata(
        new ObjectMetaBuilder().withNamespace("ml").withName(name).withUid(uid).build());
    return job;
  }

  /** A succeeded all-reduce of one size whose rank i ran on {@code nodes[i]}. */
  private static ReportSummary benchmarkOn(String... nodes) {
    return ReportSummary.read(
        TestReports.allreduce("sweep")
            .size(1048576, null, "ring", timing("ring", 80.0, null, 13.1))
            .ranksOn(nodes)
            .json(),
        "report.json");
  }

  /** A fabric sweep of three pods in which the pair of the second and third is slow. */
  private static ReportSummary fabricOf(String... nodes) {
    return ReportSummary.read(
        TestReports.fabricSweep(
            "fabric",
            List.of(nodes),
            new Double[][] {{null, 9.0, 10.0}, {9.5, null, 2.0}, {10.0, 2.0, null}}),
        "report.json");
  }

  private Stream<Meter> jobMeters() {
    return registry.getMeters().stream()
        .filter(
            meter ->
                meter.getId().getName().startsWith("gpucomm.job.")
                    || meter.getId().getName().startsWith("gpucomm.fabric."));
  }

  /** Per node, the value of {@code metric}'s series of {@code job}. */
  private Map<String, Double> values(String metric, String job) {
    return jobMeters()
        .filter(meter -> meter.getId().getName().equals(metric))
        .filter(labelled("job", job))
        .collect(
            Collectors.toMap(
                meter -> meter.getId().getTag("node"),
                meter -> meter.measure().iterator().next().getValue()));
  }

  private static Predicate<Meter> labelled(String key, String value) {
    return meter -> value.equals(meter.getId().getTag(key));
  }

  /** The operator's cache of CommJobs, holding {@code jobs}. */
  private record JobCache(List<CommJob> jobs) implements IndexedResourceCache<CommJob> {
    JobCache(CommJob... jobs) {
      this(List.of(jobs));
    }

    @Override
    public Optional<CommJob> get(ResourceID id) {
      return jobs.stream().filter(job -> ResourceID.fromResource(job).equals(id)).findFirst();
    }

    @Override
    public Stream<ResourceID> keys() {
      return jobs.stream().map(ResourceID::fromResource);
    }

    @Override
    public Stream<CommJob> list(Predicate<CommJob> predicate) {
      return jobs.stream().filter(predicate);
    }

    @Override
    public Stream<CommJob> list(String namespace, Predicate<CommJob> predicate) {
      return list(predicate.and(job -> namespace.equals(job.getMetadata().getNamespace())));
    }

    @Override
    public List<CommJob> byIndex(String indexName, String indexKey) {
      return List.of();
    }
  }
}
