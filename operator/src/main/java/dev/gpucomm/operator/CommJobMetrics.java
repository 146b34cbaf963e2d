package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.Phase;
import dev.gpucomm.api.v1alpha1.RestartCause;
import dev.gpucomm.api.v1alpha1.report.AlgorithmFigure;
import dev.gpucomm.api.v1alpha1.report.NodeFigure;
import dev.gpucomm.api.v1alpha1.report.ReportSummary;
import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Prometheus metrics: jobs by phase ({@code gpucomm_jobs}), reconcile duration ({@code
 * gpucomm_reconcile_duration_seconds}), restarts by kind of failure ({@code
 * gpucomm_restarts_total}), lost pods deleted with no grace period ({@code
 * gpucomm_lost_pods_removed_total}), and the figures of succeeded jobs ({@code
 * gpucomm_job_latency_microseconds}, {@code gpucomm_job_bus_bandwidth_gbps}) labelled by namespace,
 * job, collective, size and algorithm, and per-node figures ({@code
 * gpucomm_job_node_latency_microseconds}, {@code gpucomm_fabric_node_bandwidth_gbps}) labelled by
 * namespace, job and node; a deleted job's series go with it ({@link JobDeletionSource} tells of
 * each deletion as it happens, since a deletion reconciles nothing).
 */
@ApplicationScoped
public class CommJobMetrics {
  private final MeterRegistry registry;
  // restart counters join it from reconciler threads
  private final List<Meter> meters = new CopyOnWriteArrayList<>();
  private final Timer reconcileTimer;
  private final MultiGauge latency;
  private final MultiGauge busBandwidth;
  private final MultiGauge nodeLatency;
  private final MultiGauge nodeBandwidth;
  private final AtomicReference<IndexedResourceCache<CommJob>> jobs = new AtomicReference<>();
  private final Map<ResourceID, JobFigures> figuresByJob = new ConcurrentHashMap<>();
  private final Map<RestartCause, Counter> restartCounters = new ConcurrentHashMap<>();
  private final Counter lostPodsRemoved;

  /** Value-comparable, so that an unchanged report is not published again. */
  private record JobFigures(
      String uid, String collective, List<AlgorithmFigure> figures, List<NodeFigure> nodes) {}

  @Inject
  public CommJobMetrics(MeterRegistry registry) {
    this.registry = registry;
    reconcileTimer =
        Timer.builder("gpucomm.reconcile.duration")
            .description("Time to reconcile one CommJob")
            .publishPercentileHistogram()
            .register(registry);
    meters.add(reconcileTimer);
    lostPodsRemoved =
        Counter.builder("gpucomm.lost.pods.removed")
            .description(
                "Deleted pods on nodes whose kubelet stopped posting status that the operator"
                    + " deleted with no grace period")
            .register(registry);
    meters.add(lostPodsRemoved);
    for (Phase phase : Phase.values()) {
      meters.add(
          Gauge.builder("gpucomm.jobs", this, metrics -> metrics.countJobs(phase))
              .description("CommJobs by phase")
              .tag("phase", phase.wireName())
              .register(registry));
    }
    latency =
        MultiGauge.builder("gpucomm.job.latency")
            .baseUnit("microseconds")
            .description("Median latency per size and algorithm of succeeded CommJobs")
            .register(registry);
    busBandwidth =
        MultiGauge.builder("gpucomm.job.bus.bandwidth")
            .baseUnit("gbps")
            .description("Bus bandwidth (nccl-tests definition) per size and algorithm, GB/s")
            .register(registry);
    // one series per node of a job: labels are namespace, job and node, never a size or a rank
    nodeLatency =
        MultiGauge.builder("gpucomm.job.node.latency")
            .baseUnit("microseconds")
            .description("Slowest rank's median on each node at a benchmark's largest size")
            .register(registry);
    nodeBandwidth =
        MultiGauge.builder("gpucomm.fabric.node.bandwidth")
            .baseUnit("gbps")
            .description("Median bandwidth of each node with its partners in a fabric sweep, GB/s")
            .register(registry);
  }

  /**
   * Removes this instance's meters: a registry outliving the application (as in tests that start it
   * several times in one JVM) would otherwise keep gauges reading a stopped operator's cache.
   */
  @PreDestroy
  void removeMeters() {
    meters.forEach(registry::remove);
    latency.register(List.of(), true);
    busBandwidth.register(List.of(), true);
    nodeLatency.register(List.of(), true);
    nodeBandwidth.register(List.of(), true);
  }

  /**
   * Counts a restart that spec.failurePolicy began, by the policy's kind of failure ({@code
   * gpucomm_restarts_total{cause}}): a fleet whose jobs restart for disruptions more and more is
   * losing nodes.
   */
  public void recordRestart(RestartCause cause) {
    restartCounters
        .computeIfAbsent(
            cause,
            c -> {
              Counter counter =
                  Counter.builder("gpucomm.restarts")
                      .description(
                          "CommJob restarts made by spec.failurePolicy, by kind of failure")
                      .tag("cause", c.wireName())
                      .register(registry);
              meters.add(counter);
              return counter;
            })
        .increment();
  }

  /**
   * Counts pods deleted with no grace period because their node's kubelet went silent ({@code
   * gpucomm_lost_pods_removed_total}): each is a pod whose containers may still run on a node cut
   * off from the control plane.
   */
  public void recordLostPodsRemoved(int pods) {
    if (pods > 0) {
      lostPodsRemoved.increment(pods);
    }
  }

  public void recordReconcile(Duration duration) {
    reconcileTimer.record(duration);
  }

  /** Lets the phase gauges count the jobs in the operator's cache (so deleted jobs drop out). */
  public void watch(IndexedResourceCache<CommJob> cache) {
    jobs.set(cache);
  }

  /** Publishes a succeeded job's figures; drops those of jobs no longer in the cache. */
  public void recordSucceeded(CommJob job, ReportSummary report) {
    ResourceID id = ResourceID.fromResource(job);
    JobFigures figures =
        new JobFigures(
            job.getMetadata().getUid(), report.collective(), report.figures(), report.nodes());
    if (!figures.equals(figuresByJob.put(id, figures))) {
      forgetDeletedJobs();
      publish();
    }
  }

  /**
   * Drops every series of {@code job}, which was deleted. A job created again under its name is
   * another job: the deletion of the one before leaves its series alone.
   */
  public void forget(CommJob job) {
    ResourceID id = ResourceID.fromResource(job);
    JobFigures figures = figuresByJob.get(id);
    if (figures != null
        && Objects.equals(figures.uid(), job.getMetadata().getUid())
        && figuresByJob.remove(id, figures)) {
      publish();
    }
  }

  /**
   * Drops the figures of jobs that are gone, or that were created again under their name since (the
   * new job is not the one measured); called on every reconciliation.
   */
  public void forgetDeletedJobs() {
    IndexedResourceCache<CommJob> cache = jobs.get();
    if (cache != null
        && figuresByJob
            .entrySet()
            .removeIf(
                figures ->
                    cache
                        .get(figures.getKey())
                        .map(job -> job.getMetadata().getUid())
                        .filter(uid -> uid.equals(figures.getValue().uid()))
                        .isEmpty())) {
      publish();
    }
  }

  private synchronized void publish() {
    List<MultiGauge.Row<?>> latencyRows = new ArrayList<>();
    List<MultiGauge.Row<?>> bandwidthRows = new ArrayList<>();
    List<MultiGauge.Row<?>> nodeLatencyRows = new ArrayList<>();
    List<MultiGauge.Row<?>> nodeBandwidthRows = new ArrayList<>();
    figuresByJob.forEach(
        (id, figures) -> {
          for (NodeFigure node : figures.nodes()) {
            Tags tags =
                Tags.of(
                    "namespace", id.getNamespace().orElse(""),
                    "job", id.getName(),
                    "node", node.node());
            if (node.latencyMicros() != null) {
              nodeLatencyRows.add(MultiGauge.Row.of(tags, node.latencyMicros()));
            }
            if (node.bandwidthGBps() != null) {
              nodeBandwidthRows.add(MultiGauge.Row.of(tags, node.bandwidthGBps()));
            }
          }
          for (AlgorithmFigure figure : figures.figures()) {
            Tags tags =
                Tags.of(
                    "namespace", id.getNamespace().orElse(""),
                    "job", id.getName(),
                    "collective", Objects.requireNonNullElse(figures.collective(), ""),
                    "bytes", Long.toString(figure.bytes()),
                    "algorithm", figure.algorithm());
            latencyRows.add(MultiGauge.Row.of(tags, figure.latencyMicros()));
            if (Double.isFinite(figure.busBandwidthGBps())) {
              bandwidthRows.add(MultiGauge.Row.of(tags, figure.busBandwidthGBps()));
            }
          }
        });
    latency.register(latencyRows, true);
    busBandwidth.register(bandwidthRows, true);
    nodeLatency.register(nodeLatencyRows, true);
    nodeBandwidth.register(nodeBandwidthRows, true);
  }

  private double countJobs(Phase phase) {
    IndexedResourceCache<CommJob> cache = jobs.get();
    if (cache == null) {
      return 0;
    }
    return cache
        .list()
        .filter(
            job -> {
              Phase current = job.getStatus() == null ? null : job.getStatus().getPhase();
              return Objects.requireNonNullElse(current, Phase.PENDING) == phase;
            })
        .count();
  }
}
