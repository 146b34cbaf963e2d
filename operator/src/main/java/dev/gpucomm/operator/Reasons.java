package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.report.ExpectationVerdict;
import dev.gpucomm.api.v1alpha1.report.FabricVerdict;
import dev.gpucomm.api.v1alpha1.report.RegressionVerdict;

/** Condition types and the CamelCase reasons the operator writes into a CommJob's status. */
public final class Reasons {
  private Reasons() {}

  // condition types
  public static final String READY = "Ready";
  public static final String SUCCEEDED = "Succeeded";
  public static final String FAILED = "Failed";
  public static final String REGRESSED = "Regressed";
  public static final String SPEC_CHANGED = "SpecChanged";
  public static final String MEETS_EXPECTATIONS = "MeetsExpectations";
  public static final String DEGRADED = "Degraded";
  public static final String SUSPENDED = "Suspended";

  /** A failed run's pods go before spec.failurePolicy starts the job afresh; Ready's reason too. */
  public static final String RESTARTING = "Restarting";

  /**
   * A queue holds the job's pods back from the scheduler by design: scheduling gates (Kueue's
   * admission) or a gang scheduler's queue that has not admitted the job's PodGroup (Volcano).
   * False once the operator sees them released: the scheduling clocks run from then.
   */
  public static final String QUEUED = "Queued";

  // Queued's reasons
  public static final String SCHEDULING_GATED = "SchedulingGated";
  public static final String POD_GROUP_PENDING = "PodGroupPending";
  public static final String RELEASED = "Released";
  public static final String RUN_ENDED = "RunEnded";

  // while the job runs
  public static final String PODS_PENDING = "PodsPending";
  public static final String PODS_RUNNING = "PodsRunning";
  public static final String PODS_FAILING = "PodsFailing";
  public static final String NOT_FINISHED = "NotFinished";
  public static final String RECONCILE_ERROR = "ReconcileError";
  public static final String PREDECESSOR_TERMINATING = "PredecessorTerminating";
  public static final String PODS_TERMINATING = "PodsTerminating";

  // suspension (spec.suspend, as a queue such as Kueue sets it)
  public static final String JOB_SUSPENDED = "JobSuspended";
  public static final String JOB_RESUMED = "JobResumed";

  // restarts (spec.failurePolicy): Restarting=True's reason is the policy's kind of failure
  // (Disruption, RankFailed, Timeout); False once the new run begins, or when none does
  public static final String RESTARTED = "Restarted";
  public static final String NOT_RESTARTED = "NotRestarted";

  // events that no condition carries
  public static final String PODS_CREATED = "PodsCreated";
  public static final String TTL_EXPIRED = "TTLExpired";

  // when it has finished
  public static final String JOB_FINISHED = "JobFinished";
  public static final String ALL_RANKS_SUCCEEDED = "AllRanksSucceeded";
  public static final String JOB_FAILED = "JobFailed";
  public static final String JOB_SUCCEEDED = "JobSucceeded";

  // why it failed
  public static final String INVALID_SPEC = "InvalidSpec";
  public static final String RANK_FAILED = "RankFailed";

  /** A rank found that NCCL chose a transport spec.network.expect does not allow. */
  public static final String UNEXPECTED_TRANSPORT = "UnexpectedTransport";

  public static final String TIMEOUT = "Timeout";
  public static final String UNSCHEDULABLE = "Unschedulable";

  /** A scheduled pod whose container the kubelet could not start (an image, a Secret). */
  public static final String CONTAINER_NOT_STARTED = "ContainerNotStarted";

  public static final String POD_DELETED = "PodDeleted";

  /** A pod's node stopped answering while the run went on; its peers failed on its silence. */
  public static final String NODE_LOST = "NodeLost";

  public static final String REJECTED_BY_API_SERVER = "RejectedByApiServer";

  // regression gate
  public static final String AWAITING_REPORT = "AwaitingReport";
  public static final String SLOWER_THAN_BASELINE = RegressionVerdict.SLOWER_THAN_BASELINE;
  public static final String WITHIN_BASELINE = RegressionVerdict.WITHIN_BASELINE;
  public static final String BASELINE_NOT_FOUND = "BaselineNotFound";
  public static final String BASELINE_UNREADABLE = "BaselineUnreadable";
  public static final String NO_COMMON_SIZES = RegressionVerdict.NO_COMMON_SIZES;
  public static final String MISSING_SIZES = RegressionVerdict.MISSING_SIZES;
  public static final String NOT_COMPARABLE = RegressionVerdict.NOT_COMPARABLE;
  public static final String REPORT_UNREADABLE = "ReportUnreadable";

  // acceptance floors (spec.expect)
  public static final String ALL_EXPECTATIONS_MET = ExpectationVerdict.ALL_MET;
  public static final String EXPECTATIONS_NOT_MET = ExpectationVerdict.NOT_MET;
  public static final String EXPECTATION_NOT_MEASURED = ExpectationVerdict.NOT_MEASURED;

  // fabric sweep (Degraded)
  public static final String SLOW_NODE = FabricVerdict.SLOW_NODE;
  public static final String SLOW_LINK = FabricVerdict.SLOW_LINK;
  public static final String SLOW_GPU_PAIR = FabricVerdict.SLOW_GPU_PAIR;
  public static final String FABRIC_HEALTHY = FabricVerdict.FABRIC_HEALTHY;

  // spec edits after start
  public static final String SPEC_IMMUTABLE = "SpecImmutable";
}
