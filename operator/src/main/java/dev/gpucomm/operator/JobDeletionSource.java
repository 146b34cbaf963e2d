package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.ResourceEventAware;
import java.util.Set;

/**
 * Tells {@link CommJobMetrics} of each CommJob deleted, so that the job's series go with it. A
 * CommJob carries no finalizer (its objects go by owner reference), so its deletion reconciles
 * nothing: without this, a deleted job's series stayed until some other job was reconciled, and
 * after the last job for good. The controller hands every event on its CommJobs to the event
 * sources that ask for them; this one triggers no reconciliation and holds no resources.
 */
final class JobDeletionSource extends AbstractEventSource<CommJob, CommJob>
    implements ResourceEventAware<CommJob> {
  static final String NAME = "job-deletions";

  private final CommJobMetrics metrics;

  JobDeletionSource(CommJobMetrics metrics) {
    super(CommJob.class, NAME);
    this.metrics = metrics;
  }

  @Override
  public void onResourceDeleted(CommJob job) {
    metrics.forget(job);
  }

  @Override
  public Set<CommJob> getSecondaryResources(CommJob primary) {
    return Set.of();
  }
}
