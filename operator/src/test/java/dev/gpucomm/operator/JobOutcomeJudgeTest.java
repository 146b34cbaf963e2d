package dev.gpucomm.operator;

import static dev.gpucomm.operator.AutoscalerEvents.CLUSTER_AUTOSCALER;
import static dev.gpucomm.operator.AutoscalerEvents.NO_SCALE_UP;
import static dev.gpucomm.operator.AutoscalerEvents.SCALE_UP;
import static dev.gpucomm.operator.AutoscalerEvents.legacy;
import static dev.gpucomm.operator.AutoscalerEvents.series;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.FailurePolicy;
import dev.gpucomm.api.v1alpha1.ReportRun;
import dev.gpucomm.api.v1alpha1.RestartCause;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The verdicts that depend on which of a started job's pods are gone, and when. */
class JobOutcomeJudgeTest {
  private static final Instant STARTED = Instant.parse("2026-01-01T00:00:00Z");
  private static final int TIMEOUT_SECONDS = 60;

  private final OperatorConfig config = new TestConfig();
  private final JobOutcomeJudge judge =
      new JobOutcomeJudge(new SpecValidator(new TemplateOverlayValidator(), config), config);

  @Test
  void aPodGoneBeforeTheDeadlineIsAPodDeleted() {
    JobOutcome outcome = outcome(Map.of(0, running("job-0")), STARTED.plusSeconds(30));

    assertThat(outcome)
        .isEqualTo(
            new JobOutcome.Failed(
                Reasons.POD_DELETED,
                "pod job-1 (rank 1) was deleted before the job finished; a rank cannot rejoin a"
                    + " running job",
                Optional.of(RestartCause.DISRUPTION)));
  }

  @Test
  void aPodGoneAfterItsRanksFinishedAndRankZeroPublishedIsNoFailureOfTheRun() {
    // a node drained as the job ended: the run's report is in, its other pod succeeded
    Map<Integer, Pod> oneLeft = Map.of(0, succeeded("job-0"));

    assertThat(outcomeWithResults(job(), oneLeft, results("0"), STARTED.plusSeconds(30)))
        .isEqualTo(new JobOutcome.Succeeded());
    assertThat(outcomeWithResults(job(), oneLeft, results("1"), STARTED.plusSeconds(30)))
        .as("a report of another run proves nothing of this one")
        .isInstanceOf(JobOutcome.Failed.class);
    assertThat(
            outcomeWithResults(
                job(), Map.of(0, running("job-0")), results("0"), STARTED.plusSeconds(30)))
        .as("a pod still running is not done")
        .isInstanceOf(JobOutcome.Failed.class);
  }

  private JobOutcome outcomeWithResults(
      CommJob job, Map<Integer, Pod> pods, ConfigMap results, Instant now) {
    ConfigMap specConfigMap =
        new ConfigMapBuilder().withNewMetadata().withName("job-spec").endMetadata().build();
    JobObservation observation =
        new JobObservation(pods, Optional.of(specConfigMap), Optional.of(results), 0, 0, List.of());
    return judge.plan(job, observation, now).outcome();
  }

  /** The results ConfigMap with a report that rank 0 of run {@code run} published. */
  private static ConfigMap results(String run) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName("job-results")
        .withAnnotations(Map.of(ReportRun.ANNOTATION, run))
        .endMetadata()
        .withData(Map.of(CommJobResultsConfigMapDependentResource.REPORT_JSON, "{}"))
        .build();
  }

  @Test
  void aPodTakenByADisruptionIsAPodDeletedThatSaysWhoTookIt() {
    Pod drained = running("job-1");
    drained.getMetadata().setDeletionTimestamp(STARTED.plusSeconds(20).toString());
    drained
        .getStatus()
        .getConditions()
        .add(
            new PodConditionBuilder()
                .withType("DisruptionTarget")
                .withStatus("True")
                .withReason("EvictionByEvictionAPI")
                .withMessage("Eviction API: evicting")
                .build());
    JobObservation observation =
        new JobObservation(
            Map.of(0, running("job-0")),
            Optional.of(
                new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName("job-spec")
                    .endMetadata()
                    .build()),
            Optional.empty(),
            0,
            0,
            List.of(drained));

    assertThat(judge.plan(job(), observation, STARTED.plusSeconds(30)).outcome())
        .isEqualTo(
            new JobOutcome.Failed(
                Reasons.POD_DELETED,
                "pod job-1 (rank 1) was deleted before the job finished (EvictionByEvictionAPI:"
                    + " Eviction API: evicting); a rank cannot rejoin a running job",
                Optional.of(RestartCause.DISRUPTION)));
  }

  @Test
  void podsGoneAfterTheDeadlineAreTheTimeoutWhoseStatusPatchWasLost() {
    // the operator deleted the pods at the deadline; the patch recording Timeout then failed
    JobOutcome outcome = outcome(Map.of(), STARTED.plusSeconds(TIMEOUT_SECONDS + 5));

    assertThat(outcome)
        .isEqualTo(
            new JobOutcome.Failed(
                Reasons.TIMEOUT,
                "not finished after 60 s (spec.timeoutSeconds): 0 of 2 pods running",
                Optional.of(RestartCause.TIMEOUT)));
  }

  @Test
  void runningPodsPastTheDeadlineTimeOut() {
    JobOutcome outcome =
        outcome(
            Map.of(0, running("job-0"), 1, running("job-1")),
            STARTED.plusSeconds(TIMEOUT_SECONDS + 1));

    assertThat(outcome)
        .isEqualTo(
            new JobOutcome.Failed(
                Reasons.TIMEOUT,
                "not finished after 60 s (spec.timeoutSeconds): 2 of 2 pods running",
                Optional.of(RestartCause.TIMEOUT)));
  }

  @Test
  void aRankThatFoundTheWrongTransportFailsTheJobAsUnexpectedTransport() {
    String message =
        "rank 1 failed: unexpected transport: rank 1: spec.network.expect.interNode is ib, but"
            + " NCCL connected ranks 1 and 0 (other hosts) via NET/Socket/0";
    JobOutcome outcome =
        outcome(Map.of(0, running("job-0"), 1, failed("job-1", message)), STARTED.plusSeconds(9));

    assertThat(outcome).isInstanceOf(JobOutcome.Failed.class);
    JobOutcome.Failed failed = (JobOutcome.Failed) outcome;
    assertThat(failed.reason()).isEqualTo(Reasons.UNEXPECTED_TRANSPORT);
    assertThat(failed.message()).contains("pod job-1", "interNode is ib", "NET/Socket/0");
  }

  @Test
  void aPodTheKubeletEndedAtItsOwnDeadlineTimesTheJobOut() {
    // the operator was away at the job's timeout; the pods' fallback deadline ended the run
    Pod ended = failed("job-1", "");
    ended.getStatus().setReason("DeadlineExceeded");
    ended.getStatus().setMessage("Pod was active on the node longer than the specified deadline");

    JobOutcome outcome =
        outcome(Map.of(0, running("job-0"), 1, ended), STARTED.plusSeconds(TIMEOUT_SECONDS + 900));

    assertThat(outcome)
        .isEqualTo(
            new JobOutcome.Failed(
                Reasons.TIMEOUT,
                "pod job-1 (rank 1) failed: DeadlineExceeded: Pod was active on the node longer"
                    + " than the specified deadline",
                Optional.of(RestartCause.TIMEOUT)));
  }

  @Test
  void peersEndedAtTheirDeadlineAfterARankCrashedAreTheCrashsStory() {
    Pod crashed = failed("job-0", "rank 0 failed: CUDA error");
    Pod endedLater = failed("job-1", "");
    endedLater.getStatus().setReason("DeadlineExceeded");
    endedLater
        .getStatus()
        .getContainerStatuses()
        .getFirst()
        .getState()
        .getTerminated()
        .setFinishedAt(STARTED.plusSeconds(2000).toString());

    JobOutcome outcome =
        outcome(Map.of(0, crashed, 1, endedLater), STARTED.plusSeconds(TIMEOUT_SECONDS + 2000));

    assertThat(outcome)
        .isEqualTo(
            new JobOutcome.Failed(
                Reasons.RANK_FAILED,
                "pod job-0 (rank 0) failed: exit code 1: rank 0 failed: CUDA error; pod job-1"
                    + " (rank 1) failed: DeadlineExceeded",
                Optional.of(RestartCause.RANK_FAILED)));
  }

  private static Pod failed(String name, String terminationMessage) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewStatus()
        .withPhase("Failed")
        .addNewContainerStatus()
        .withName("gpucomm")
        .withNewState()
        .withNewTerminated()
        .withExitCode(1)
        .withMessage(terminationMessage)
        .withFinishedAt(STARTED.plusSeconds(8).toString())
        .endTerminated()
        .endState()
        .endContainerStatus()
        .endStatus()
        .build();
  }

  @Test
  void podsThatNeverAllRanHaveTheSchedulingTimeoutOnTopOfTheTimeoutToStart() {
    CommJob job = job();
    job.getStatus().setRunningTime(null);
    Map<Integer, Pod> oneStillPulling = Map.of(0, running("job-0"), 1, pending("job-1"));

    assertThat(outcome(job, oneStillPulling, STARTED.plusSeconds(TIMEOUT_SECONDS + 299)))
        .isInstanceOf(JobOutcome.InProgress.class);
    assertThat(outcome(job, oneStillPulling, STARTED.plusSeconds(TIMEOUT_SECONDS + 301)))
        .isEqualTo(
            new JobOutcome.Failed(
                Reasons.TIMEOUT,
                "pods not all running 360 s after they were created (spec.timeoutSeconds +"
                    + " spec.schedulingTimeoutSeconds): 1 of 2 pods running, 1 pending"));
  }

  @Test
  void aPodThatCannotPullItsImageFailsTheJobASchedulingTimeoutAfterItWasPlaced() {
    CommJob job = job();
    job.getStatus().setRunningTime(null);
    Map<Integer, Pod> oneStalled =
        Map.of(
            0,
            running("job-0"),
            1,
            waiting(
                "job-1",
                STARTED.plusSeconds(10),
                "ImagePullBackOff",
                "Back-off pulling image \"registry.example/gpucomm:typo\""));

    assertThat(outcome(job, oneStalled, STARTED.plusSeconds(309)))
        .isInstanceOf(JobOutcome.InProgress.class);
    assertThat(outcome(job, oneStalled, STARTED.plusSeconds(311)))
        .isEqualTo(
            new JobOutcome.Failed(
                Reasons.CONTAINER_NOT_STARTED,
                "pod job-1 (rank 1) could not start within 300 s of being scheduled"
                    + " (spec.schedulingTimeoutSeconds): container gpucomm: its image cannot be"
                    + " pulled (ImagePullBackOff: Back-off pulling image"
                    + " \"registry.example/gpucomm:typo\")"));
  }

  @Test
  void anImageNameThatIsNoneFailsTheJobAtOnce() {
    CommJob job = job();
    job.getStatus().setRunningTime(null);
    Pod invalid =
        waiting(
            "job-1",
            STARTED,
            "InvalidImageName",
            "Failed to apply default image tag \"Registry/Gpucomm\": invalid reference format");

    assertThat(outcome(job, Map.of(0, running("job-0"), 1, invalid), STARTED.plusSeconds(1)))
        .isEqualTo(
            new JobOutcome.Failed(
                Reasons.CONTAINER_NOT_STARTED,
                "pod job-1 (rank 1) cannot start: container gpucomm: its image name is not valid"
                    + " (InvalidImageName: Failed to apply default image tag"
                    + " \"Registry/Gpucomm\": invalid reference format)"));
  }

  @Test
  void theReadyMessageSaysWhyAPodWaitsInWordsThatOutlastTheKubeletsBackOff() {
    Pod pulling = waiting("job-1", STARTED, "ErrImagePull", "rpc error: not found");
    Pod backingOff = waiting("job-1", STARTED, "ImagePullBackOff", "Back-off pulling image");
    JobLayout layout = JobLayout.of(job().getSpec(), "8Gi");

    String first = PodPhases.podCounts(Map.of(0, running("job-0"), 1, pulling), layout);
    String next = PodPhases.podCounts(Map.of(0, running("job-0"), 1, backingOff), layout);

    assertThat(first)
        .isEqualTo(next)
        .isEqualTo("1 of 2 pods running, 1 pending (pod job-1: its image cannot be pulled)");
  }

  @Test
  void aContainerOnItsWayIsNoStall() {
    Pod creating = waiting("job-1", STARTED, "ContainerCreating", "");

    assertThat(ContainerStall.of(creating)).isEmpty();
    assertThat(
            outcome(
                job(),
                Map.of(0, running("job-0"), 1, creating),
                STARTED.plusSeconds(TIMEOUT_SECONDS - 1)))
        .isInstanceOf(JobOutcome.InProgress.class);
  }

  /** A pod placed at {@code scheduledAt} whose rank container waits for {@code reason}. */
  private static Pod waiting(String name, Instant scheduledAt, String reason, String message) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withStatus(FakeKubelet.waitingStatus(scheduledAt, reason, message))
        .build();
  }

  @Test
  void podsTheApiServerKeptRefusingTimeOutNamingItsLastRefusal() {
    CommJob job = job();
    job.getStatus().setRunningTime(null);
    Condition refused = new Condition();
    refused.setType(Reasons.READY);
    refused.setStatus("False");
    refused.setReason(Reasons.RECONCILE_ERROR);
    refused.setMessage(
        "pods \"job-1\" is forbidden: exceeded quota: gpus, requested: requests.nvidia.com/gpu=1");
    job.getStatus().setConditions(List.of(refused));

    assertThat(
            outcome(job, Map.of(0, running("job-0")), STARTED.plusSeconds(TIMEOUT_SECONDS + 301)))
        .isEqualTo(
            new JobOutcome.Failed(
                Reasons.TIMEOUT,
                "pods not all running 360 s after they were created (spec.timeoutSeconds +"
                    + " spec.schedulingTimeoutSeconds): 1 of 2 pods running; the last reconcile"
                    + " error: pods \"job-1\" is forbidden: exceeded quota: gpus, requested:"
                    + " requests.nvidia.com/gpu=1"));
  }

  @Test
  void aJobWhoseObjectsTheApiServerKeepsRefusingTimesOutNamingTheRefusal() {
    CommJob job = jobCreatedAtStarted();
    Instant refusedFrom = STARTED.plusSeconds(600); // the operator was away for ten minutes
    job.getStatus()
        .setConditions(
            List.of(
                refusedSince(
                    refusedFrom,
                    "podgroups.scheduling.volcano.sh \"job\" is forbidden: unable to find"
                        + " queue: night")));

    assertThat(notStartedOutcome(job, refusedFrom.plusSeconds(TIMEOUT_SECONDS + 299)))
        .isInstanceOf(JobOutcome.InProgress.class);
    assertThat(notStartedOutcome(job, refusedFrom.plusSeconds(TIMEOUT_SECONDS + 301)))
        .isEqualTo(
            new JobOutcome.Failed(
                Reasons.TIMEOUT,
                "the job's objects not all made 360 s after it started (spec.timeoutSeconds +"
                    + " spec.schedulingTimeoutSeconds); the last reconcile error:"
                    + " podgroups.scheduling.volcano.sh \"job\" is forbidden: unable to find"
                    + " queue: night"));
  }

  @Test
  void aJobTheOperatorHasNotTriedToStartIsNotTimedOutHoweverOld() {
    CommJob job = jobCreatedAtStarted();

    assertThat(notStartedOutcome(job, STARTED.plusSeconds(100 * TIMEOUT_SECONDS)))
        .isInstanceOf(JobOutcome.InProgress.class);
  }

  @Test
  void theRefusalsOfAResumedJobCountFromItsResume() {
    CommJob job = jobCreatedAtStarted();
    Instant resumed = STARTED.plusSeconds(3_600);
    job.getStatus()
        .setConditions(
            List.of(
                refusedSince(STARTED, "configmaps \"job-spec\" is forbidden: exceeded quota"),
                new ConditionBuilder()
                    .withType(Reasons.SUSPENDED)
                    .withStatus("False")
                    .withReason(Reasons.JOB_RESUMED)
                    .withLastTransitionTime(resumed.toString())
                    .build()));

    assertThat(notStartedOutcome(job, resumed.plusSeconds(TIMEOUT_SECONDS + 299)))
        .isInstanceOf(JobOutcome.InProgress.class);
    assertThat(notStartedOutcome(job, resumed.plusSeconds(TIMEOUT_SECONDS + 301)))
        .isInstanceOf(JobOutcome.Failed.class);
  }

  @Test
  void aPodHeldBackBySchedulingGatesKeepsTheJobFromTimingOut() {
    CommJob job = job();
    job.getStatus().setRunningTime(null);
    JobOutcome outcome =
        outcome(
            job,
            Map.of(0, running("job-0"), 1, gated("job-1")),
            STARTED.plusSeconds(10 * TIMEOUT_SECONDS));

    assertThat(outcome).isInstanceOf(JobOutcome.InProgress.class);
  }

  @Test
  void aSuspendedJobThatHasNotFinishedIsSuspendedWhateverItsPods() {
    CommJob job = job();
    job.getSpec().setSuspend(true);

    JobOutcome outcome = outcome(job, Map.of(), STARTED.plusSeconds(TIMEOUT_SECONDS + 5));

    assertThat(outcome).isEqualTo(new JobOutcome.Suspended());
  }

  @Test
  void aGatedPodPastTheStartUpAllowanceIsNotRecheckedOverAndOver() {
    // a queue holding a pod back for longer than timeout + scheduling timeout: the job waits for
    // the gate's removal (a pod event), not for a deadline that has passed and fires at once
    CommJob job = job();
    job.getStatus().setRunningTime(null);
    Instant muchLater = STARTED.plusSeconds(10 * TIMEOUT_SECONDS);
    JobPlan plan = plan(job, Map.of(0, running("job-0"), 1, gated("job-1")), muchLater);

    assertThat(judge.nextCheck(plan, job.getStatus(), muchLater)).isEmpty();

    JobPlan ungated = plan(job, Map.of(0, running("job-0"), 1, pending("job-1")), STARTED);
    assertThat(judge.nextCheck(ungated, job.getStatus(), STARTED))
        .contains(Duration.ofSeconds(TIMEOUT_SECONDS + 300));
  }

  @Test
  void aRunThatFinishedBeforeItsSuspensionWasSeenKeepsItsSuccess() {
    CommJob job = job();
    job.getSpec().setSuspend(true);
    Map<Integer, Pod> finished = Map.of(0, succeeded("job-0"), 1, succeeded("job-1"));
    Map<Integer, Pod> halfway = Map.of(0, succeeded("job-0"), 1, running("job-1"));

    assertThat(outcome(job, finished, STARTED.plusSeconds(9)))
        .isEqualTo(new JobOutcome.Succeeded());
    assertThat(outcome(job, halfway, STARTED.plusSeconds(9))).isEqualTo(new JobOutcome.Suspended());
  }

  @Test
  void aSidecarKeepingThePodRunningDoesNotHideTheRankContainersEnd() {
    // a service mesh's proxy keeps running after gpucomm exits, and with it the pod's phase
    Map<Integer, Pod> bothExited0 =
        Map.of(
            0,
            SidecarPods.runningAfterExit("job-0", 0, ""),
            1,
            SidecarPods.runningAfterExit("job-1", 0, ""));
    Map<Integer, Pod> oneExited1 =
        Map.of(
            0,
            running("job-0"),
            1,
            SidecarPods.runningAfterExit("job-1", 1, "rank 1 failed: boom"));

    assertThat(outcome(bothExited0, STARTED.plusSeconds(9))).isEqualTo(new JobOutcome.Succeeded());
    assertThat(outcome(oneExited1, STARTED.plusSeconds(9)))
        .isEqualTo(
            new JobOutcome.Failed(
                Reasons.RANK_FAILED,
                "pod job-1 (rank 1) failed: exit code 1: rank 1 failed: boom",
                Optional.of(RestartCause.RANK_FAILED)));
  }

  @Test
  void aFailedMessageNamesTheFirstFailuresAndCountsTheRest() {
    CommJob job = job();
    job.getSpec().setWorldSize(100);
    Map<Integer, Pod> pods = new HashMap<>();
    for (int index = 0; index < 100; index++) {
      pods.put(index, failed("job-" + index, "x".repeat(250)));
    }

    JobOutcome.Failed failed = (JobOutcome.Failed) outcome(job, pods, STARTED.plusSeconds(9));

    assertThat(failed.message().split("; ")).hasSize(JobOutcomeJudge.MAX_FAILURES + 1);
    assertThat(failed.message()).endsWith("; and 92 more pods failed");
  }

  /** spec.failurePolicy: which failures start the job afresh, and how a restart is counted. */
  @Nested
  class UnderAFailurePolicy {
    private static final String DELETED =
        "pod job-1 (rank 1) was deleted before the job finished; a rank cannot rejoin a running job";

    @Test
    void aPodDeletedMidRunRestartsTheJobWhileRestartsAreLeft() {
      CommJob job = jobRestarting(2);

      assertThat(outcome(job, Map.of(0, running("job-0")), STARTED.plusSeconds(30)))
          .isEqualTo(
              new JobOutcome.Restarting(
                  RestartCause.DISRUPTION, "restart 1 of 2 after PodDeleted: " + DELETED, 1));
    }

    @Test
    void aRankThatFailedRestartsTheJobOnlyWhenThePolicyNamesRankFailed() {
      Map<Integer, Pod> crashed =
          Map.of(0, running("job-0"), 1, failed("job-1", "rank 1 failed: NCCL error"));
      CommJob job = jobRestarting(1);

      assertThat(outcome(job, crashed, STARTED.plusSeconds(9)))
          .as("restartOn defaults to disruptions only")
          .isInstanceOf(JobOutcome.Failed.class);

      job.getSpec()
          .getFailurePolicy()
          .setRestartOn(List.of(RestartCause.RANK_FAILED, RestartCause.TIMEOUT));
      assertThat(outcome(job, crashed, STARTED.plusSeconds(9)))
          .isEqualTo(
              new JobOutcome.Restarting(
                  RestartCause.RANK_FAILED,
                  "restart 1 of 1 after RankFailed: pod job-1 (rank 1) failed: exit code 1: rank"
                      + " 1 failed: NCCL error",
                  1));
    }

    @Test
    void aPodItsKubeletEvictedIsADisruptionThoughItFailedAsARank() {
      Pod evicted = failed("job-1", "");
      evicted.getStatus().setReason("Evicted");
      evicted.getStatus().setMessage("The node was low on resource: memory.");

      JobOutcome outcome =
          outcome(
              jobRestarting(1), Map.of(0, running("job-0"), 1, evicted), STARTED.plusSeconds(9));

      assertThat(outcome).isInstanceOf(JobOutcome.Restarting.class);
      assertThat(((JobOutcome.Restarting) outcome).cause()).isEqualTo(RestartCause.DISRUPTION);
      assertThat(((JobOutcome.Restarting) outcome).message())
          .contains("after RankFailed: pod job-1");
    }

    @Test
    void aPodEvictedForItsOwnSharedMemoryLimitIsItsRanksFailureNotADisruption() {
      Pod overShm = failed("job-1", "");
      overShm.getStatus().setReason("Evicted");
      overShm
          .getStatus()
          .setMessage("Usage of EmptyDir volume \"dshm\" exceeds the limit \"8Gi\". ");

      JobOutcome outcome =
          outcome(
              jobRestarting(1), Map.of(0, running("job-0"), 1, overShm), STARTED.plusSeconds(9));

      assertThat(outcome).as("it would be evicted again").isInstanceOf(JobOutcome.Failed.class);
    }

    @Test
    void aFailureThatWouldRecurIsNeverRestarted() {
      CommJob job = jobRestarting(3);
      job.getSpec().getFailurePolicy().setRestartOn(List.of(RestartCause.values()));
      Pod wrongTransport =
          failed("job-1", "rank 1 failed: unexpected transport: NCCL connected via NET/Socket/0");

      JobOutcome outcome =
          outcome(job, Map.of(0, running("job-0"), 1, wrongTransport), STARTED.plusSeconds(9));

      assertThat(outcome).isInstanceOf(JobOutcome.Failed.class);
      assertThat(((JobOutcome.Failed) outcome).reason()).isEqualTo(Reasons.UNEXPECTED_TRANSPORT);
    }

    @Test
    void theFailureAfterTheLastRestartSaysTheRestartsAreSpent() {
      CommJob job = jobRestarting(2);
      job.getStatus().setRestarts(2);

      assertThat(outcome(job, Map.of(0, running("job-0")), STARTED.plusSeconds(30)))
          .isEqualTo(
              new JobOutcome.Failed(
                  Reasons.POD_DELETED,
                  DELETED + "; no restart left (2 of spec.failurePolicy.maxRestarts 2 made)",
                  Optional.of(RestartCause.DISRUPTION)));
    }

    @Test
    void aRestartUnderWayWaitsForTheFailedRunsObjectsAndIsCountedOnce() {
      CommJob job = jobRestarting(3);
      markRestarting(job, 1);
      Map<Integer, Pod> failedRun = Map.of(0, failed("job-0", "rank 0 failed: boom"));

      JobPlan plan = plan(job, failedRun, STARTED.plusSeconds(40));

      assertThat(plan.outcome())
          .as("the failed pod is the restart's, not a second failure")
          .isEqualTo(
              new JobOutcome.Restarting(RestartCause.DISRUPTION, "restart 1 of 3 after X", 1));
      assertThat(judge.nextCheck(plan, job.getStatus(), STARTED.plusSeconds(40)))
          .as("an old pod on a node that does not answer sends no event")
          .contains(JobDeadlines.RESTART_RECHECK);
    }

    @Test
    void onceTheFailedRunsObjectsAreGoneTheJobStartsAfresh() {
      CommJob job = jobRestarting(3);
      markRestarting(job, 1);
      JobObservation nothingLeft =
          new JobObservation(Map.of(), Optional.empty(), Optional.empty(), 0, 0, List.of());

      JobOutcome outcome = judge.plan(job, nothingLeft, STARTED.plusSeconds(40)).outcome();

      assertThat(outcome).as(outcome.toString()).isInstanceOf(JobOutcome.InProgress.class);
    }

    @Test
    void anOldPodThatNeverStopsFailsTheRestartAfterTheSchedulingTimeout() {
      CommJob job = jobRestarting(3);
      markRestarting(job, 1);
      Pod stuck = running("job-0");
      stuck.getMetadata().setDeletionTimestamp(STARTED.plusSeconds(40).toString());
      JobObservation observation =
          new JobObservation(Map.of(), Optional.empty(), Optional.empty(), 0, 0, List.of(stuck));

      JobOutcome outcome = judge.plan(job, observation, STARTED.plusSeconds(341)).outcome();

      assertThat(outcome).isInstanceOf(JobOutcome.Failed.class);
      assertThat(((JobOutcome.Failed) outcome).reason()).isEqualTo(Reasons.UNSCHEDULABLE);
    }

    /** When the restart of {@link #restartWithSchedulingTimeoutOf10s} deleted the failed pod. */
    private static final Instant LOST_POD_DELETED = STARTED.plusSeconds(40);

    @Test
    void aLostPodWithAShortGracePeriodGetsItsRemovalBeforeTheRestartFails() {
      CommJob job = restartWithSchedulingTimeoutOf10s();
      JobObservation observation = failedRunsPodOnALostNode(5);

      assertThat(judge.plan(job, observation, LOST_POD_DELETED.plusSeconds(25)).outcome())
          .as("its grace period and the scheduling timeout are over, but its removal is not due")
          .isInstanceOf(JobOutcome.Restarting.class);
      JobOutcome stuck = judge.plan(job, observation, LOST_POD_DELETED.plusSeconds(41)).outcome();
      assertThat(stuck)
          .as("still here 10 s after its removal was due: its node still answers")
          .isInstanceOf(JobOutcome.Failed.class);
      assertThat(((JobOutcome.Failed) stuck).reason()).isEqualTo(Reasons.UNSCHEDULABLE);
    }

    @Test
    void aLostPodWithALongGracePeriodCountsFromItsEndNotFromItsRemoval() {
      CommJob job = restartWithSchedulingTimeoutOf10s();
      JobObservation observation = failedRunsPodOnALostNode(600);

      assertThat(judge.plan(job, observation, LOST_POD_DELETED.plusSeconds(45)).outcome())
          .as("its removal was due 15 s ago, but its kubelet may still end it within its grace")
          .isInstanceOf(JobOutcome.Restarting.class);
      assertThat(judge.plan(job, observation, LOST_POD_DELETED.plusSeconds(611)).outcome())
          .isInstanceOf(JobOutcome.Failed.class);
    }

    private static CommJob restartWithSchedulingTimeoutOf10s() {
      CommJob job = jobRestarting(3);
      job.getSpec().setSchedulingTimeoutSeconds(10);
      markRestarting(job, 1);
      return job;
    }

    /**
     * The failed run's pod, on a node the node controller marked NotReady, deleted at {@link
     * #LOST_POD_DELETED} with a grace period of {@code graceSeconds}.
     */
    private static JobObservation failedRunsPodOnALostNode(long graceSeconds) {
      Pod lost = LostNodes.markedNotReady("job-0", STARTED.plusSeconds(20));
      lost.getMetadata().setDeletionGracePeriodSeconds(graceSeconds);
      lost.getMetadata()
          .setDeletionTimestamp(LOST_POD_DELETED.plusSeconds(graceSeconds).toString());
      return new JobObservation(Map.of(), Optional.empty(), Optional.empty(), 0, 0, List.of(lost));
    }

    @Test
    void aPeerThatFailedOnADrainedPodsSilenceIsPartOfTheDisruption() {
      // the operator was away during the drain: pod 1 is gone and pod 0's rank failed without it
      Map<Integer, Pod> peerFailed =
          Map.of(0, failed("job-0", "rank 0 failed: rendezvous: rank 1 disconnected"));

      JobOutcome outcome = outcome(jobRestarting(1), peerFailed, STARTED.plusSeconds(30));

      assertThat(outcome).isInstanceOf(JobOutcome.Restarting.class);
      assertThat(((JobOutcome.Restarting) outcome).cause()).isEqualTo(RestartCause.DISRUPTION);
    }

    @Test
    void aRunPastItsTimeoutIsRestartedButPodsThatNeverAllStartedAreNot() {
      CommJob job = jobRestarting(1);
      job.getSpec().getFailurePolicy().setRestartOn(List.of(RestartCause.TIMEOUT));
      Map<Integer, Pod> bothRunning = Map.of(0, running("job-0"), 1, running("job-1"));

      assertThat(outcome(job, bothRunning, STARTED.plusSeconds(TIMEOUT_SECONDS + 1)))
          .isInstanceOf(JobOutcome.Restarting.class);

      job.getStatus().setRunningTime(null);
      Map<Integer, Pod> oneNeverStarts = Map.of(0, running("job-0"), 1, pending("job-1"));
      JobOutcome neverStarted =
          outcome(job, oneNeverStarts, STARTED.plusSeconds(TIMEOUT_SECONDS + 301));
      assertThat(neverStarted).isInstanceOf(JobOutcome.Failed.class);
      assertThat(((JobOutcome.Failed) neverStarted).reason()).isEqualTo(Reasons.TIMEOUT);
    }

    @Test
    void aRestartWhoseFailedRunNeverGoesFailsAfterTheSchedulingTimeout() {
      CommJob job = jobRestarting(3);
      markRestarting(job, 1);
      // a webhook refuses the pod's deletion: it is never even terminating
      Map<Integer, Pod> undeletable = Map.of(0, running("job-0"));

      assertThat(outcome(job, undeletable, STARTED.plusSeconds(35 + 299)))
          .isInstanceOf(JobOutcome.Restarting.class);
      JobOutcome overdue = outcome(job, undeletable, STARTED.plusSeconds(35 + 301));
      assertThat(overdue).isInstanceOf(JobOutcome.Failed.class);
      assertThat(((JobOutcome.Failed) overdue).reason()).isEqualTo(Reasons.UNSCHEDULABLE);
      assertThat(((JobOutcome.Failed) overdue).message())
          .startsWith("the failed run's pods or spec ConfigMap are still here 300 s after");
    }

    private static CommJob jobRestarting(int maxRestarts) {
      CommJob job = TestJobs.cpuBenchmark(job());
      job.getSpec().setFailurePolicy(new FailurePolicy().withMaxRestarts(maxRestarts));
      return job;
    }

    /** The status as the reconciliation that began restart {@code restart} left it. */
    private static void markRestarting(CommJob job, int restart) {
      job.getStatus().setRestarts(restart);
      job.getStatus().setStartTime(null);
      job.getStatus().setRunningTime(null);
      job.getStatus()
          .setConditions(
              List.of(
                  new ConditionBuilder()
                      .withType(Reasons.RESTARTING)
                      .withStatus("True")
                      .withReason("Disruption")
                      .withLastTransitionTime(STARTED.plusSeconds(35).toString())
                      .withMessage("restart 1 of 3 after X")
                      .build()));
    }
  }

  /** A node that stops answering leaves its pod Running while its peers fail on its silence. */
  @Nested
  class LostNodes {
    private final JobOutcomeJudge waiting =
        new JobOutcomeJudge(
            new SpecValidator(new TemplateOverlayValidator(), config),
            new TestConfig(Duration.ofSeconds(60)));
    private final Instant failedAt = STARTED.plusSeconds(100);

    @Test
    void peersThatFailedBesideAPodStillRunningWaitForItsStory() {
      Map<Integer, Pod> pods = Map.of(0, failedOnSilence("job-0"), 1, running("job-1"));

      JobOutcome outcome = judged(pods, failedAt.plusSeconds(20));

      assertThat(outcome).isEqualTo(new JobOutcome.InProgress(Optional.of(Duration.ofSeconds(40))));
    }

    @Test
    void aPodTheNodeControllerMarkedNotReadyIsTheRunsDisruption() {
      Map<Integer, Pod> pods =
          Map.of(0, failedOnSilence("job-0"), 1, markedNotReady("job-1", failedAt.plusSeconds(35)));

      JobOutcome outcome = judged(pods, failedAt.plusSeconds(40));

      assertThat(outcome)
          .isEqualTo(
              new JobOutcome.Failed(
                  Reasons.NODE_LOST,
                  "pod job-1 (rank 1) is on a node that stopped answering (NotReady since"
                      + " 2026-01-01T00:02:15Z), and its peers failed on its silence: pod job-0"
                      + " (rank 0) failed: exit code 1: rank 0: rendezvous: rank 1 stopped"
                      + " answering",
                  Optional.of(RestartCause.DISRUPTION)));
    }

    @Test
    void aPodWhoseSidecarIsNotReadyHasNotLostItsNode() {
      Pod sidecarNotReady = markedNotReady("job-1", failedAt);
      sidecarNotReady
          .getStatus()
          .getConditions()
          .add(new PodConditionBuilder().withType("ContainersReady").withStatus("False").build());

      assertThat(NodeLoss.nodeLost(sidecarNotReady)).isFalse();
    }

    @Test
    void aPodHeldNotReadyByAReadinessGateHasNotLostItsNode() {
      Pod gatedByALoadBalancer = markedNotReady("job-1", failedAt);
      gatedByALoadBalancer
          .getStatus()
          .getConditions()
          .getFirst()
          .setReason("ReadinessGatesNotReady");

      assertThat(NodeLoss.nodeLost(gatedByALoadBalancer)).isFalse();
      assertThat(NodeLoss.nodeLost(markedNotReady("job-1", failedAt))).isTrue();
    }

    @Test
    void aPodStillRunningAndReadyPastTheGraceLeavesTheFailuresTheirOwnStory() {
      Map<Integer, Pod> pods = Map.of(0, failedOnSilence("job-0"), 1, running("job-1"));

      JobOutcome outcome = judged(pods, failedAt.plusSeconds(61));

      assertThat(outcome).isInstanceOf(JobOutcome.Failed.class);
      assertThat(((JobOutcome.Failed) outcome).reason()).isEqualTo(Reasons.RANK_FAILED);
    }

    @Test
    void failuresWithEveryPodEndedAreJudgedAtOnce() {
      Map<Integer, Pod> pods = Map.of(0, failedOnSilence("job-0"), 1, failedOnSilence("job-1"));

      assertThat(judged(pods, failedAt.plusSeconds(1))).isInstanceOf(JobOutcome.Failed.class);
    }

    @Test
    void aRunPastItsTimeoutIsJudgedWithoutWaiting() {
      CommJob timedOut = job(); // running since STARTED, 60 s allowed
      Map<Integer, Pod> pods = Map.of(0, failedOnSilence("job-0"), 1, running("job-1"));

      assertThat(judged(timedOut, pods, failedAt.plusSeconds(20)))
          .isInstanceOf(JobOutcome.Failed.class);
    }

    private JobOutcome judged(Map<Integer, Pod> pods, Instant now) {
      CommJob job = job();
      job.getSpec().setTimeoutSeconds(3600);
      return judged(job, pods, now);
    }

    private JobOutcome judged(CommJob job, Map<Integer, Pod> pods, Instant now) {
      ConfigMap specConfigMap =
          new ConfigMapBuilder().withNewMetadata().withName("job-spec").endMetadata().build();
      JobObservation observation =
          new JobObservation(pods, Optional.of(specConfigMap), Optional.empty(), 0, 0, List.of());
      return waiting.plan(job, observation, now).outcome();
    }

    /** A pod whose ranks failed at {@code failedAt} on a peer's silence. */
    private Pod failedOnSilence(String name) {
      Pod pod = running(name);
      pod.getStatus().setPhase("Failed");
      pod.getStatus()
          .setContainerStatuses(
              List.of(
                  new ContainerStatusBuilder()
                      .withName(PodTemplateFactory.CONTAINER_NAME)
                      .withNewState()
                      .withNewTerminated()
                      .withExitCode(1)
                      .withMessage("rank 0: rendezvous: rank 1 stopped answering")
                      .withFinishedAt(failedAt.toString())
                      .endTerminated()
                      .endState()
                      .build()));
      return pod;
    }

    /** A pod the node controller marked NotReady at {@code at}: its node stopped answering. */
    private static Pod markedNotReady(String name, Instant at) {
      Pod pod = running(name);
      pod.getStatus()
          .setConditions(
              new java.util.ArrayList<>(
                  List.of(
                      new PodConditionBuilder()
                          .withType("Ready")
                          .withStatus("False")
                          .withLastTransitionTime(at.toString())
                          .build(),
                      new PodConditionBuilder()
                          .withType("ContainersReady")
                          .withStatus("True")
                          .build())));
      return pod;
    }
  }

  /** Pods a queue holds back wait their turn; their scheduling clocks run from their release. */
  @Nested
  class Queues {
    private static final String NOT_READY =
        "pod group is not ready, 2 Pending, 2 minAvailable; Pending: 2 Undetermined";
    private final Instant muchLater = STARTED.plusSeconds(10 * (TIMEOUT_SECONDS + 300));

    @Test
    void aGangVolcanosQueueHasNotAdmittedWaitsHoweverLongItsPodsAreMarkedUnschedulable() {
      CommJob job = notYetRunning();
      Map<Integer, Pod> markedByVolcano =
          Map.of(0, unschedulable("job-0", STARTED), 1, unschedulable("job-1", STARTED));

      JobPlan plan = queuedPlan(job, markedByVolcano, muchLater);

      assertThat(plan.outcome()).isInstanceOf(JobOutcome.InProgress.class);
      // the group's admission is no event the operator watches: it looks again
      assertThat(judge.nextCheck(plan, job.getStatus(), muchLater))
          .contains(JobDeadlines.GANG_QUEUE_RECHECK);
    }

    @Test
    void podsTheOperatorSeesReleasedNowHaveTheirWholeSchedulingTimeoutAhead() {
      CommJob job = notYetRunning();
      markQueued(job, "True", STARTED);
      Map<Integer, Pod> stillUnplaced =
          Map.of(0, unschedulable("job-0", STARTED), 1, unschedulable("job-1", STARTED));

      JobPlan plan = plan(job, stillUnplaced, muchLater);

      assertThat(plan.outcome()).isInstanceOf(JobOutcome.InProgress.class);
      assertThat(judge.nextCheck(plan, job.getStatus(), muchLater))
          .contains(Duration.ofSeconds(300));
    }

    @Test
    void releasedPodsTheSchedulerStillRefusesFailTheSchedulingTimeoutAfterTheRelease() {
      CommJob job = notYetRunning();
      markQueued(job, "False", muchLater);
      Map<Integer, Pod> refused = Map.of(0, running("job-0"), 1, unschedulable("job-1", STARTED));

      assertThat(outcome(job, refused, muchLater.plusSeconds(299)))
          .isInstanceOf(JobOutcome.InProgress.class);
      JobOutcome failed = outcome(job, refused, muchLater.plusSeconds(301));
      assertThat(failed).isInstanceOf(JobOutcome.Failed.class);
      assertThat(((JobOutcome.Failed) failed).reason()).isEqualTo(Reasons.UNSCHEDULABLE);
    }

    @Test
    void podsUngatedLongAfterTheirCreationHaveTheStartUpAllowanceFromTheRelease() {
      CommJob job = notYetRunning();
      markQueued(job, "False", muchLater);
      Map<Integer, Pod> onItsWay = Map.of(0, running("job-0"), 1, pending("job-1"));

      assertThat(outcome(job, onItsWay, muchLater.plusSeconds(TIMEOUT_SECONDS + 299)))
          .isInstanceOf(JobOutcome.InProgress.class);
      assertThat(outcome(job, onItsWay, muchLater.plusSeconds(TIMEOUT_SECONDS + 301)))
          .isEqualTo(
              new JobOutcome.Failed(
                  Reasons.TIMEOUT,
                  "pods not all running 360 s after their queue released them"
                      + " (spec.timeoutSeconds + spec.schedulingTimeoutSeconds): 1 of 2 pods"
                      + " running, 1 pending"));
    }

    @Test
    void aGangItsQueueTakesBackAfterReleasingItKeepsItsSchedulingClock() {
      // Volcano sends a gang it cannot place back to its queue, and admits it again later: were
      // every admission a new start, a gang that never fits would never fail
      CommJob job = notYetRunning();
      Instant released = STARTED.plusSeconds(100);
      markQueued(job, "False", released);
      Map<Integer, Pod> markedByVolcano =
          Map.of(0, unschedulable("job-0", STARTED), 1, unschedulable("job-1", STARTED));

      assertThat(queuedPlan(job, markedByVolcano, released.plusSeconds(299)).outcome())
          .isInstanceOf(JobOutcome.InProgress.class);
      JobOutcome failed = queuedPlan(job, markedByVolcano, released.plusSeconds(301)).outcome();
      assertThat(failed).isInstanceOf(JobOutcome.Failed.class);
      assertThat(((JobOutcome.Failed) failed).reason()).isEqualTo(Reasons.UNSCHEDULABLE);
    }

    @Test
    void aReleaseOfAnEarlierRunDoesNotReleaseThisOne() {
      CommJob job = notYetRunning();
      markQueued(job, "False", STARTED.minusSeconds(600));

      JobOutcome outcome =
          queuedPlan(
                  job,
                  Map.of(0, unschedulable("job-0", STARTED), 1, unschedulable("job-1", STARTED)),
                  muchLater)
              .outcome();

      assertThat(outcome).isInstanceOf(JobOutcome.InProgress.class);
    }

    @Test
    void theQueuedConditionSaysWhatHoldsThePodsAndTurnsFalseAtTheRelease() {
      CommJobStatus status = notYetRunning().getStatus();
      JobObservation gated = observing(new TreeMap<>(Map.of(0, gated("job-0"), 1, gated("job-1"))));
      JobObservation released = observing(Map.of(0, pending("job-0"), 1, pending("job-1")));

      Condition held = queuedAfter(status, gated, gated, STARTED).orElseThrow();
      assertThat(held.getStatus()).isEqualTo("True");
      assertThat(held.getReason()).isEqualTo(Reasons.SCHEDULING_GATED);
      assertThat(held.getMessage())
          .isEqualTo(
              "pod job-0 waits for its scheduling gates to be removed"
                  + " (kueue.x-k8s.io/admission); and 1 more pods");

      status.setConditions(List.of(held));
      Condition free = queuedAfter(status, released, released, muchLater).orElseThrow();
      assertThat(free.getStatus()).isEqualTo("False");
      assertThat(free.getReason()).isEqualTo(Reasons.RELEASED);
      assertThat(free.getLastTransitionTime()).isEqualTo(muchLater.toString());

      status.setConditions(List.of(free));
      assertThat(queuedAfter(status, gated, gated, muchLater.plusSeconds(60)))
          .as("held again after the release: the run's clocks run on")
          .contains(free);
    }

    @Test
    void podsMadeWithTheirGatesAreQueuedInTheReconciliationThatMadeThem() {
      CommJobStatus status = notYetRunning().getStatus();

      Optional<Condition> queued =
          queuedAfter(
              status, observing(Map.of()), observing(Map.of(0, gatedBySpecOnly("job-0"))), STARTED);

      assertThat(queued).map(Condition::getStatus).contains("True");
    }

    @Test
    void aJobNeverHeldHasNoQueuedConditionAndAnEndedRunEndsItsHold() {
      CommJobStatus status = notYetRunning().getStatus();
      JobObservation running = observing(Map.of(0, running("job-0"), 1, running("job-1")));
      assertThat(queuedAfter(status, running, running, STARTED)).isEmpty();

      JobObservation gated = observing(Map.of(0, gated("job-0")));
      status.setConditions(List.of(queuedAfter(status, gated, gated, STARTED).orElseThrow()));
      Condition suspended =
          SchedulingHold.condition(
                  status,
                  new JobOutcome.Suspended(),
                  observing(Map.of()),
                  observing(Map.of()),
                  1,
                  muchLater)
              .orElseThrow();
      assertThat(suspended.getStatus()).isEqualTo("False");
      assertThat(suspended.getReason()).isEqualTo(Reasons.RUN_ENDED);
    }

    private static Optional<Condition> queuedAfter(
        CommJobStatus status, JobObservation planned, JobObservation after, Instant now) {
      return SchedulingHold.condition(
          status, new JobOutcome.InProgress(Optional.empty()), planned, after, 1, now);
    }

    private static JobObservation observing(Map<Integer, Pod> pods) {
      return new JobObservation(pods, Optional.empty(), Optional.empty(), 0, 0, List.of());
    }

    private static Pod gatedBySpecOnly(String name) {
      Pod pod = pending(name);
      pod.setSpec(new PodSpecBuilder().addNewSchedulingGate("kueue.x-k8s.io/admission").build());
      return pod;
    }

    private static CommJob notYetRunning() {
      CommJob job = job();
      job.getStatus().setRunningTime(null);
      return job;
    }

    private static void markQueued(CommJob job, String status, Instant since) {
      job.getStatus()
          .setConditions(
              List.of(
                  new ConditionBuilder()
                      .withType(Reasons.QUEUED)
                      .withStatus(status)
                      .withReason(
                          "True".equals(status) ? Reasons.POD_GROUP_PENDING : Reasons.RELEASED)
                      .withLastTransitionTime(since.toString())
                      .build()));
    }

    private JobPlan queuedPlan(CommJob job, Map<Integer, Pod> pods, Instant now) {
      ConfigMap specConfigMap =
          new ConfigMapBuilder().withNewMetadata().withName("job-spec").endMetadata().build();
      JobObservation observation =
          new JobObservation(pods, Optional.of(specConfigMap), Optional.empty(), 0, 0, List.of())
              .withGangQueue(
                  Optional.of("Volcano's queue default has not admitted PodGroup job yet"));
      return judge.plan(job, observation, now);
    }

    private static Pod unschedulable(String name, Instant since) {
      return refusedByTheScheduler(pending(name), since, NOT_READY);
    }
  }

  /**
   * A pod waiting for a node that a node autoscaler is bringing may wait longer than its scheduling
   * timeout: GPU nodes take minutes to join.
   */
  @Nested
  class Autoscalers {
    private static final String NO_ROOM = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.";
    private final Instant scaleUp = STARTED.plusSeconds(20);

    @Test
    void aPodWhoseNodeIsOnItsWayWaitsTheScaleUpTimeoutFromThePromise() {
      CommJob job = notYetRunning();
      Map<Integer, Pod> waiting = Map.of(0, running("job-0"), 1, unschedulable("job-1"));
      NodeProvisioning promised =
          of(legacy("TriggeredScaleUp", CLUSTER_AUTOSCALER, rankOne(), scaleUp, scaleUp, SCALE_UP));

      JobPlan pastScheduling = plan(job, waiting, promised, STARTED.plusSeconds(400));
      assertThat(pastScheduling.outcome())
          .isEqualTo(
              new JobOutcome.InProgress(
                  Optional.of(JobDeadlines.SCALE_UP_RECHECK),
                  Optional.of(
                      "pod job-1 (rank 1) waits for the node its autoscaler is bringing, until"
                          + " 2026-01-01T00:30:20Z (cluster-autoscaler's TriggeredScaleUp at"
                          + " 2026-01-01T00:00:20Z: pod triggered scale-up: [{gpu-pool 0->1 (max:"
                          + " 4)}])")));
      // the autoscaler giving up is only an Event: the operator looks again within a minute
      assertThat(judge.nextCheck(pastScheduling, job.getStatus(), STARTED.plusSeconds(400)))
          .contains(JobDeadlines.SCALE_UP_RECHECK);
      assertThat(plan(job, waiting, promised, scaleUp.plusSeconds(1799)).outcome())
          .isInstanceOf(JobOutcome.InProgress.class);
      assertThat(plan(job, waiting, promised, scaleUp.plusSeconds(1801)).outcome())
          .isEqualTo(
              new JobOutcome.Failed(
                  Reasons.UNSCHEDULABLE,
                  "pod job-1 (rank 1) could not be scheduled within 300 s, nor within 1800 s of"
                      + " its node autoscaler's word (cluster-autoscaler's TriggeredScaleUp at"
                      + " 2026-01-01T00:00:20Z: pod triggered scale-up: [{gpu-pool 0->1 (max:"
                      + " 4)}]): "
                      + NO_ROOM));
    }

    @Test
    void noWordReadBeforeThePodsDeadlineEndsItsWait() {
      List<Instant> readsAsked = new java.util.ArrayList<>();
      NodeProvisioning provisioning =
          NodeProvisioning.readNoEarlierThan(
              notBefore -> {
                readsAsked.add(notBefore);
                return List.of();
              });
      JobObservation observation =
          observing(Map.of(0, running("job-0"), 1, unschedulable("job-1")), provisioning);

      JobOutcome outcome =
          judge.plan(notYetRunning(), observation, STARTED.plusSeconds(301)).outcome();

      assertThat(outcome).isInstanceOf(JobOutcome.Failed.class);
      // a namespace's Events kept from before the scheduling deadline do not decide the verdict
      assertThat(readsAsked).containsExactly(STARTED.plusSeconds(300));
    }

    @Test
    void promisesAgainAndAgainStillEndTheScaleUpTimeoutAfterTheSchedulingDeadline() {
      // refused after its first promise, then promised again: the wait starts again, but no
      // later than the scale-up timeout after the pod's scheduling deadline
      NodeProvisioning promisedAgain =
          of(
              legacy("TriggeredScaleUp", CLUSTER_AUTOSCALER, rankOne(), scaleUp, scaleUp, SCALE_UP),
              legacy(
                  "NotTriggerScaleUp",
                  CLUSTER_AUTOSCALER,
                  rankOne(),
                  STARTED.plusSeconds(1500),
                  STARTED.plusSeconds(1500),
                  NO_SCALE_UP),
              legacy(
                  "TriggeredScaleUp",
                  CLUSTER_AUTOSCALER,
                  rankOne(),
                  STARTED.plusSeconds(1560),
                  STARTED.plusSeconds(1560),
                  SCALE_UP + " again"));
      Map<Integer, Pod> waiting = Map.of(0, running("job-0"), 1, unschedulable("job-1"));
      Instant capped = STARTED.plusSeconds(300 + 1800);

      assertThat(plan(notYetRunning(), waiting, promisedAgain, capped.minusSeconds(1)).outcome())
          .isInstanceOf(JobOutcome.InProgress.class);
      JobOutcome over =
          plan(notYetRunning(), waiting, promisedAgain, capped.plusSeconds(1)).outcome();
      assertThat(over).isInstanceOf(JobOutcome.Failed.class);
      assertThat(((JobOutcome.Failed) over).reason()).isEqualTo(Reasons.UNSCHEDULABLE);
    }

    @Test
    void karpentersNominationCountsAsAPromise() {
      NodeProvisioning nominated =
          of(series("Nominated", "karpenter", rankOne(), scaleUp, scaleUp.plusSeconds(240)));

      assertThat(
              plan(
                      notYetRunning(),
                      Map.of(0, running("job-0"), 1, unschedulable("job-1")),
                      nominated,
                      STARTED.plusSeconds(600))
                  .outcome())
          .isInstanceOf(JobOutcome.InProgress.class);
    }

    @Test
    void anAutoscalerThatGivesUpOnTheNodeFailsThePodAtItsSchedulingTimeoutAndSaysWhy() {
      NodeProvisioning declined =
          of(
              legacy("TriggeredScaleUp", CLUSTER_AUTOSCALER, rankOne(), scaleUp, scaleUp, SCALE_UP),
              legacy(
                  "NotTriggerScaleUp",
                  CLUSTER_AUTOSCALER,
                  rankOne(),
                  STARTED.plusSeconds(330),
                  STARTED.plusSeconds(330),
                  NO_SCALE_UP));

      assertThat(
              plan(
                      notYetRunning(),
                      Map.of(0, running("job-0"), 1, unschedulable("job-1")),
                      declined,
                      STARTED.plusSeconds(331))
                  .outcome())
          .isEqualTo(
              new JobOutcome.Failed(
                  Reasons.UNSCHEDULABLE,
                  "pod job-1 (rank 1) could not be scheduled within 300 s (cluster-autoscaler's"
                      + " NotTriggerScaleUp at 2026-01-01T00:05:30Z: "
                      + NO_SCALE_UP
                      + "): "
                      + NO_ROOM));
    }

    @Test
    void aPodPlacedLateOnItsNewNodeHasTheTimeToStartThatTheOthersHad() {
      CommJob job = notYetRunning();
      // placed on the node an autoscaler brought it, 700 s after the job started: pulling its image
      Instant placed = STARTED.plusSeconds(700);
      Map<Integer, Pod> pulling = Map.of(0, running("job-0"), 1, placedAt(rankOne(), placed));
      NodeProvisioning unread =
          NodeProvisioning.of(
              () -> {
                throw new AssertionError("Events read for pods that have their nodes");
              });
      Instant allowanceOver = STARTED.plusSeconds(TIMEOUT_SECONDS + 301);
      Instant startOver = placed.plusSeconds(TIMEOUT_SECONDS);

      JobPlan plan = plan(job, pulling, unread, allowanceOver);
      assertThat(plan.outcome()).isInstanceOf(JobOutcome.InProgress.class);
      assertThat(judge.nextCheck(plan, job.getStatus(), allowanceOver))
          .contains(Duration.between(allowanceOver, startOver));
      assertThat(plan(job, pulling, unread, startOver.plusSeconds(1)).outcome())
          .isEqualTo(
              new JobOutcome.Failed(
                  Reasons.TIMEOUT,
                  "pods not all running 60 s (spec.timeoutSeconds) after the last of them was"
                      + " placed on a node, at 2026-01-01T00:11:40Z: 1 of 2 pods running, 1"
                      + " pending"));
    }

    @Test
    void aPodStillWaitingForItsNodeIsNoPodThatNeverStarted() {
      // past the start-up allowance (360 s), well within the node's wait (1800 s)
      Instant now = STARTED.plusSeconds(1000);
      NodeProvisioning promised =
          of(legacy("TriggeredScaleUp", CLUSTER_AUTOSCALER, rankOne(), scaleUp, scaleUp, SCALE_UP));

      assertThat(
              plan(
                      notYetRunning(),
                      Map.of(0, running("job-0"), 1, unschedulable("job-1")),
                      promised,
                      now)
                  .outcome())
          .isInstanceOf(JobOutcome.InProgress.class);
    }

    @Test
    void withTheWaitForAutoscalersTurnedOffNoEventIsRead() {
      OperatorConfig noWait = new TestConfig(Duration.ZERO, Duration.ZERO);
      JobOutcomeJudge impatient =
          new JobOutcomeJudge(new SpecValidator(new TemplateOverlayValidator(), noWait), noWait);
      NodeProvisioning unreadable =
          NodeProvisioning.of(
              () -> {
                throw new AssertionError("Events read");
              });
      JobObservation observation =
          observing(Map.of(0, running("job-0"), 1, unschedulable("job-1")), unreadable);

      JobOutcome outcome =
          impatient.plan(notYetRunning(), observation, STARTED.plusSeconds(301)).outcome();

      assertThat(outcome).isInstanceOf(JobOutcome.Failed.class);
      assertThat(((JobOutcome.Failed) outcome).reason()).isEqualTo(Reasons.UNSCHEDULABLE);
    }

    private JobPlan plan(
        CommJob job, Map<Integer, Pod> pods, NodeProvisioning provisioning, Instant now) {
      return judge.plan(job, observing(pods, provisioning), now);
    }

    /** A started job's {@code pods}, and what {@code provisioning} says of them. */
    private static JobObservation observing(Map<Integer, Pod> pods, NodeProvisioning provisioning) {
      return new JobObservation(
              pods, Optional.of(specConfigMap()), Optional.empty(), 0, 0, List.of())
          .withNodeProvisioning(provisioning);
    }

    private static NodeProvisioning of(Event... events) {
      return NodeProvisioning.of(() -> List.of(events));
    }

    private static ConfigMap specConfigMap() {
      return new ConfigMapBuilder().withNewMetadata().withName("job-spec").endMetadata().build();
    }

    private static CommJob notYetRunning() {
      CommJob job = job();
      job.getStatus().setRunningTime(null);
      return job;
    }

    private static Pod rankOne() {
      return withUid(pending("job-1"));
    }

    private static Pod placedAt(Pod pod, Instant placed) {
      pod.getStatus()
          .setConditions(
              List.of(
                  new PodConditionBuilder()
                      .withType("PodScheduled")
                      .withStatus("True")
                      .withLastTransitionTime(placed.toString())
                      .build()));
      return pod;
    }

    private static Pod withUid(Pod pod) {
      pod.getMetadata().setUid("uid-1");
      return pod;
    }

    /** The pod of rank 1, which the scheduler has found no node for since the job started. */
    private static Pod unschedulable(String name) {
      return refusedByTheScheduler(withUid(pending(name)), STARTED, NO_ROOM);
    }
  }

  private JobOutcome outcome(Map<Integer, Pod> pods, Instant now) {
    return outcome(job(), pods, now);
  }

  private JobOutcome outcome(CommJob job, Map<Integer, Pod> pods, Instant now) {
    return plan(job, pods, now).outcome();
  }

  @Test
  void aDeletedNamesakesLostPodHoldsTheNewJobUntilItsRemovalHadTime() {
    CommJob job = jobCreatedAtStarted();
    job.getSpec().setSchedulingTimeoutSeconds(10);
    // the namesake's pod, deleted with it 5 s before this job was created, on a lost node
    Pod namesakes = LostNodes.markedNotReady("job-0", STARTED.minusSeconds(60));
    namesakes.getMetadata().setDeletionGracePeriodSeconds(5L);
    namesakes.getMetadata().setDeletionTimestamp(STARTED.toString());
    List<Pod> pods = List.of(namesakes);

    assertThat(judge.predecessorsOverdue(job, "1 pod", true, pods, STARTED.plusSeconds(20)))
        .as("created 20 s ago, but the removal falls due only at 25 s")
        .isEmpty();
    assertThat(judge.predecessorsOverdue(job, "1 pod", true, pods, STARTED.plusSeconds(36)))
        .hasValueSatisfying(
            failed ->
                assertThat(failed.message())
                    .startsWith(
                        "names this job needs are still held by a deleted CommJob named job, 10"
                            + " s after the removal of a lost node's pod fell due: 1 pod"));
    assertThat(judge.predecessorsOverdue(job, "1 pod", true, List.of(), STARTED.plusSeconds(11)))
        .as("with no lost pod among them, from the job's creation")
        .hasValueSatisfying(
            failed -> assertThat(failed.message()).contains("10 s after the job was created"));
  }

  /** A job created at STARTED whose run has neither started nor run yet. */
  private static CommJob jobCreatedAtStarted() {
    CommJob job = job();
    job.getMetadata().setCreationTimestamp(STARTED.toString());
    job.getStatus().setStartTime(null);
    job.getStatus().setRunningTime(null);
    return job;
  }

  /** Ready as the operator leaves it while the API server refuses its objects since {@code at}. */
  private static Condition refusedSince(Instant at, String refusal) {
    return new ConditionBuilder()
        .withType(Reasons.READY)
        .withStatus("False")
        .withReason(Reasons.RECONCILE_ERROR)
        .withLastTransitionTime(at.toString())
        .withMessage(refusal)
        .build();
  }

  /**
   * The outcome of a valid job none of whose objects exist yet (no spec ConfigMap, no pods): the
   * spec is validated before anything is made.
   */
  private JobOutcome notStartedOutcome(CommJob job, Instant now) {
    TestJobs.cpuBenchmark(job);
    JobObservation observation =
        new JobObservation(Map.of(), Optional.empty(), Optional.empty(), 0, 0, List.of());
    return judge.plan(job, observation, now).outcome();
  }

  private JobPlan plan(CommJob job, Map<Integer, Pod> pods, Instant now) {
    ConfigMap specConfigMap =
        new ConfigMapBuilder().withNewMetadata().withName("job-spec").endMetadata().build();
    JobObservation observation =
        new JobObservation(pods, Optional.of(specConfigMap), Optional.empty(), 0, 0, List.of());
    return judge.plan(job, observation, now);
  }

  private static Pod gated(String name) {
    Pod gated = pending(name);
    gated.setSpec(new PodSpecBuilder().addNewSchedulingGate("kueue.x-k8s.io/admission").build());
    gated
        .getStatus()
        .setConditions(
            List.of(
                new PodConditionBuilder()
                    .withType("PodScheduled")
                    .withStatus("False")
                    .withReason("SchedulingGated")
                    .build()));
    return gated;
  }

  private static Pod succeeded(String name) {
    Pod pod = running(name);
    pod.getStatus().setPhase("Succeeded");
    return pod;
  }

  /** {@code pod}, which the scheduler has found no node for since {@code since}. */
  private static Pod refusedByTheScheduler(Pod pod, Instant since, String message) {
    pod.getStatus()
        .setConditions(
            List.of(
                new PodConditionBuilder()
                    .withType("PodScheduled")
                    .withStatus("False")
                    .withReason("Unschedulable")
                    .withMessage(message)
                    .withLastTransitionTime(since.toString())
                    .build()));
    return pod;
  }

  private static Pod pending(String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewStatus()
        .withPhase("Pending")
        .endStatus()
        .build();
  }

  private static CommJob job() {
    CommJob job = new CommJob();
    job.setMetadata(new ObjectMetaBuilder().withName("job").withNamespace("ns").build());
    CommJobSpec spec = new CommJobSpec();
    spec.setWorldSize(2);
    spec.setRanksPerPod(1);
    spec.setTimeoutSeconds(TIMEOUT_SECONDS);
    job.setSpec(spec);
    CommJobStatus status = new CommJobStatus();
    status.setStartTime(STARTED.toString());
    status.setRunningTime(STARTED.toString());
    job.setStatus(status);
    return job;
  }

  private static Pod running(String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewStatus()
        .withPhase("Running")
        .endStatus()
        .build();
  }

  /**
   * The operator's defaults, as the Helm chart sets them, but for the wait for a lost node: the
   * other tests judge a failure at once, beside pods still Running.
   */
  private static final class TestConfig implements OperatorConfig {
    private final Duration nodeLossGrace;
    private final Duration scaleUpTimeout;

    TestConfig() {
      this(Duration.ZERO);
    }

    TestConfig(Duration nodeLossGrace) {
      this(nodeLossGrace, Duration.ofMinutes(30));
    }

    TestConfig(Duration nodeLossGrace, Duration scaleUpTimeout) {
      this.nodeLossGrace = nodeLossGrace;
      this.scaleUpTimeout = scaleUpTimeout;
    }

    @Override
    public Duration nodeLossGrace() {
      return nodeLossGrace;
    }

    @Override
    public boolean removeLostPods() {
      return true;
    }

    @Override
    public Duration lostPodRemovalDelay() {
      return Duration.ofSeconds(30);
    }

    @Override
    public String runtimeImage() {
      return "gpucomm-runtime:test";
    }

    @Override
    public String runtimeImagePullPolicy() {
      return "IfNotPresent";
    }

    @Override
    public Optional<List<String>> runtimeImagePullSecrets() {
      return Optional.empty();
    }

    @Override
    public String defaultSharedMemorySize() {
      return "8Gi";
    }

    @Override
    public String cpuPerRank() {
      return "2";
    }

    @Override
    public String memoryPerRank() {
      return "4Gi";
    }

    @Override
    public Optional<String> rankPodTemplate() {
      return Optional.empty();
    }

    @Override
    public Duration unschedulableTimeout() {
      return Duration.ofSeconds(300);
    }

    @Override
    public Duration scaleUpTimeout() {
      return scaleUpTimeout;
    }

    @Override
    public Duration autoscalerEventsKept() {
      return Duration.ofSeconds(30);
    }

    @Override
    public int rendezvousPort() {
      return 29500;
    }

    @Override
    public long runAsUser() {
      return 1000;
    }

    @Override
    public Duration baselineRecheckInterval() {
      return Duration.ofSeconds(30);
    }

    @Override
    public LeaderElection leaderElection() {
      throw new UnsupportedOperationException("not used by the judge");
    }
  }
}
