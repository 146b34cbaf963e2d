package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import java.util.List;

/** What a CommJob runs, on how many ranks, and how its results are judged. */
@JsonClassDescription("What the job runs, on how many ranks, and how its results are judged.")
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "self.worldSize % self.ranksPerPod == 0",
    message = "spec.worldSize must be a multiple of spec.ranksPerPod")
@ValidationRule(
    value = "!has(self.expect) || self.workload.kind == 'benchmark'",
    message = "spec.expect checks benchmark figures: it applies to workload.kind benchmark only")
@ValidationRule(
    value = "!has(self.baseline) || self.workload.kind == 'benchmark'",
    message =
        "spec.baseline compares benchmark reports: it applies to workload.kind benchmark only")
// the most likely mistake of a multi-node job, refused at kubectl apply rather than as InvalidSpec
@ValidationRule(
    value =
        "self.worldSize <= self.ranksPerPod"
            + " || ((!has(self.workload.benchmark) || !has(self.workload.benchmark.algorithms)"
            + " || self.workload.benchmark.algorithms.all(a, !(a in ['oneshot', 'twoshot', 'copyengine'])))"
            + " && (!has(self.workload.tune) || !has(self.workload.tune.algorithms)"
            + " || self.workload.tune.algorithms.all(a, !(a in ['oneshot', 'twoshot', 'copyengine'])))"
            + " && (!has(self.workload.program) || !has(self.workload.program.backend)"
            + " || self.workload.program.backend != 'ipc'))",
    message =
        "oneshot, twoshot, copyengine and the program backend ipc exchange buffers among the ranks"
            + " of one pod: a job whose ranks span pods (worldSize above ranksPerPod) uses nccl"
            + " (or auto in a benchmark) and the program backend nccl")
// ring is the cpu device's all-reduce; device defaults to cuda before the rules run
@ValidationRule(
    value =
        "self.device != 'cuda'"
            + " || ((!has(self.workload.benchmark) || !has(self.workload.benchmark.algorithms)"
            + " || !('ring' in self.workload.benchmark.algorithms))"
            + " && (!has(self.workload.tune) || !has(self.workload.tune.algorithms)"
            + " || !('ring' in self.workload.tune.algorithms)))",
    message = "ring is the cpu device's stand-in for NCCL; on device cuda use nccl")
// What a job runs is fixed at creation; its lifecycle fields (suspend, ttlSecondsAfterFinished,
// cleanPodPolicy, schedulingTimeoutSeconds, failurePolicy) may change. A queue such as Kueue places
// a suspended
// job by editing its pod template (nodeSelector, tolerations), so the template may change while
// the job is suspended. Kueue also evicts a running job by suspending it and taking its placement
// back out of the template in one write, so the write that suspends may change the template too:
// the pods it made go either way.
@ValidationRule(
    value =
        "(has(oldSelf.suspend) && oldSelf.suspend) || (has(self.suspend) && self.suspend)"
            + " || (has(self.template) == has(oldSelf.template)"
            + " && (!has(self.template) || self.template == oldSelf.template))",
    message = "spec.template is immutable unless the job is suspended")
@ValidationRule(
    value =
        "has(self.baseline) == has(oldSelf.baseline) && has(self.network) == has(oldSelf.network)"
            + " && has(self.heuristic) == has(oldSelf.heuristic)"
            + " && has(self.gang) == has(oldSelf.gang) && has(self.expect) == has(oldSelf.expect)"
            + " && has(self.sharedMemorySize) == has(oldSelf.sharedMemorySize)",
    message =
        "spec.baseline, spec.expect, spec.network, spec.heuristic, spec.gang and"
            + " spec.sharedMemorySize cannot be added or removed after creation: create a new"
            + " CommJob to run something else")
public class CommJobSpec {
  public static final String DEFAULT_SHARED_MEMORY = "8Gi";

  private static final String IMMUTABLE =
      "is immutable: create a new CommJob to run something else";

  @ValidationRule(value = "self == oldSelf", message = IMMUTABLE)
  @Required
  @Min(1)
  @Max(4096)
  @JsonPropertyDescription("Total number of ranks (one GPU each for device cuda).")
  private Integer worldSize;

  @ValidationRule(value = "self == oldSelf", message = IMMUTABLE)
  @Default("" + CommJobDefaults.RANKS_PER_POD)
  @Min(1)
  @Max(CommJobDefaults.MAX_RANKS_PER_POD)
  @JsonPropertyDescription(
      "Ranks per pod, that is GPUs per node. Ranks of one pod share its IPC namespace, so custom"
          + " (CUDA IPC) algorithms run among them; must divide worldSize.")
  private Integer ranksPerPod;

  @ValidationRule(value = "self == oldSelf", message = IMMUTABLE)
  @Default(CommJobDefaults.DEVICE_NAME)
  @JsonPropertyDescription("Device backend of the ranks: cuda (one GPU per rank) or cpu.")
  private DeviceKind device;

  @ValidationRule(value = "self == oldSelf", message = IMMUTABLE)
  @Required
  @JsonPropertyDescription(
      "What the ranks run: a benchmark sweep, a host-IR program or a tuning sweep.")
  private Workload workload;

  @ValidationRule(value = "self == oldSelf", message = IMMUTABLE)
  @JsonPropertyDescription("How the auto algorithm is chosen per size; trtllm when omitted.")
  private Heuristic heuristic;

  @ValidationRule(value = "self == oldSelf", message = IMMUTABLE)
  @Default("" + CommJobDefaults.TIMEOUT_SECONDS)
  @Min(1)
  @Max(86400)
  @JsonPropertyDescription(
      "The job fails with reason Timeout when it has not finished this many seconds after all"
          + " its pods were first running (status.runningTime): rendezvous and the run count; time"
          + " spent suspended, queued, scheduling or pulling images does not. Pods that never all"
          + " run fail the job with reason Timeout timeoutSeconds + schedulingTimeoutSeconds after"
          + " they were created (status.startTime) or their queue released them (condition"
          + " Queued), never while it holds them back.")
  private Integer timeoutSeconds;

  @ValidationRule(value = "self == oldSelf", message = IMMUTABLE)
  @JsonPropertyDescription("Earlier results to compare with; sets the Regressed condition.")
  private Baseline baseline;

  @ValidationRule(value = "self == oldSelf", message = IMMUTABLE)
  @Size(min = 1, max = 64)
  @JsonPropertyDescription(
      "Pass/fail floors checked against the measured figures; sets the MeetsExpectations condition.")
  private List<Expectation> expect;

  @ValidationRule(value = "self == oldSelf", message = IMMUTABLE)
  @JsonPropertyDescription("What the job requires of the fabric between its ranks.")
  private NetworkSpec network;

  @ValidationRule(value = "self == oldSelf", message = IMMUTABLE)
  @Pattern("^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|k|M|G|T)?$")
  @JsonPropertyDescription(
      "Size of the memory-backed /dev/shm of each pod (NCCL needs far more than the container"
          + " default of 64Mi), 64Mi to 1Ti; 8Gi when omitted.")
  private String sharedMemorySize;

  @Default("false")
  @JsonPropertyDescription(
      "A suspended job has no pods; setting it back to false starts the job afresh. A queue such"
          + " as Kueue creates jobs suspended and admits them by unsuspending; while suspended,"
          + " and in the update that suspends it, the pod template (nodeSelector, tolerations) may"
          + " change. A finished job ignores it.")
  private Boolean suspend;

  @Min(0)
  @Max(2147483647)
  @JsonPropertyDescription(
      "Seconds after the job finished (status.completionTime) when the operator deletes it, its"
          + " pods and its results; kept until deleted when omitted.")
  private Integer ttlSecondsAfterFinished;

  @Default(CommJobDefaults.CLEAN_POD_POLICY_NAME)
  @JsonPropertyDescription(
      "Which pods are deleted when the job finishes: Running (pods not yet finished), All (all,"
          + " except a failed job's failed pods, kept for their logs until the TTL) or None. A pod"
          + " counts as finished by its phase: one that a sidecar keeps Running goes, since it"
          + " holds its node's GPUs.")
  private CleanPodPolicy cleanPodPolicy;

  @Min(1)
  @Max(604800)
  @JsonPropertyDescription(
      "The job fails with reason Unschedulable when one of its pods has been refused by the"
          + " scheduler for this many seconds; the operator's default (Helm value"
          + " runtime.unschedulableTimeout) when omitted. Pods a queue holds back (scheduling"
          + " gates, a Volcano queue that has not admitted the PodGroup) do not count; the time"
          + " runs from their release. A pod that the cluster's node autoscaler is bringing a"
          + " node for (a TriggeredScaleUp or Nominated Event on the pod) may wait longer: the"
          + " operator's scale-up timeout (Helm value runtime.scaleUpTimeout) from the"
          + " autoscaler's first word since its last refusal, unless it refuses since. Also how long a new job"
          + " waits for a deleted namesake's objects to release its names, and its pods' earlier"
          + " run's pods to terminate.")
  private Integer schedulingTimeoutSeconds;

  @JsonPropertyDescription(
      "Whether the job starts afresh after a failure, and how often (JobSet's failurePolicy):"
          + " it fails at its first failure when omitted. May change while the job runs.")
  private FailurePolicy failurePolicy;

  @JsonPropertyDescription(
      "Gang scheduling through a PodGroup, so that the job never holds some GPUs while waiting"
          + " for the rest.")
  @ValidationRule(value = "self == oldSelf", message = IMMUTABLE)
  private GangSpec gang;

  // Typed as RankPodTemplate for admission and kubectl explain; read as a PodTemplateSpec so that
  // the operator can name a field the schema would not have let through.
  @SchemaFrom(type = RankPodTemplate.class)
  @JsonDeserialize(using = PodTemplateReader.class)
  @JsonPropertyDescription(
      "Pod template overlay merged into every pod: labels, annotations, scheduling, networking"
          + " (hostNetwork, resource claims), pull secrets, volumes and the rank container's"
          + " image, resources, env and added capabilities.")
  private PodTemplateSpec template;

  public Integer getWorldSize() {
    return worldSize;
  }

  public void setWorldSize(Integer worldSize) {
    this.worldSize = worldSize;
  }

  public Integer getRanksPerPod() {
    return ranksPerPod;
  }

  public void setRanksPerPod(Integer ranksPerPod) {
    this.ranksPerPod = ranksPerPod;
  }

  public DeviceKind getDevice() {
    return device;
  }

  public void setDevice(DeviceKind device) {
    this.device = device;
  }

  public Workload getWorkload() {
    return workload;
  }

  public void setWorkload(Workload workload) {
    this.workload = workload;
  }

  public Heuristic getHeuristic() {
    return heuristic;
  }

  public void setHeuristic(Heuristic heuristic) {
    this.heuristic = heuristic;
  }

  public Integer getTimeoutSeconds() {
    return timeoutSeconds;
  }

  public void setTimeoutSeconds(Integer timeoutSeconds) {
    this.timeoutSeconds = timeoutSeconds;
  }

  public List<Expectation> getExpect() {
    return expect;
  }

  public void setExpect(List<Expectation> expect) {
    this.expect = expect;
  }

  public CommJobSpec withExpect(List<Expectation> expect) {
    this.expect = expect;
    return this;
  }

  public NetworkSpec getNetwork() {
    return network;
  }

  public void setNetwork(NetworkSpec network) {
    this.network = network;
  }

  public CommJobSpec withNetwork(NetworkSpec network) {
    this.network = network;
    return this;
  }

  public Baseline getBaseline() {
    return baseline;
  }

  public void setBaseline(Baseline baseline) {
    this.baseline = baseline;
  }

  public String getSharedMemorySize() {
    return sharedMemorySize;
  }

  public void setSharedMemorySize(String sharedMemorySize) {
    this.sharedMemorySize = sharedMemorySize;
  }

  public Boolean getSuspend() {
    return suspend;
  }

  public void setSuspend(Boolean suspend) {
    this.suspend = suspend;
  }

  public Integer getTtlSecondsAfterFinished() {
    return ttlSecondsAfterFinished;
  }

  public void setTtlSecondsAfterFinished(Integer ttlSecondsAfterFinished) {
    this.ttlSecondsAfterFinished = ttlSecondsAfterFinished;
  }

  public FailurePolicy getFailurePolicy() {
    return failurePolicy;
  }

  public void setFailurePolicy(FailurePolicy failurePolicy) {
    this.failurePolicy = failurePolicy;
  }

  public CleanPodPolicy getCleanPodPolicy() {
    return cleanPodPolicy;
  }

  public void setCleanPodPolicy(CleanPodPolicy cleanPodPolicy) {
    this.cleanPodPolicy = cleanPodPolicy;
  }

  public Integer getSchedulingTimeoutSeconds() {
    return schedulingTimeoutSeconds;
  }

  public void setSchedulingTimeoutSeconds(Integer schedulingTimeoutSeconds) {
    this.schedulingTimeoutSeconds = schedulingTimeoutSeconds;
  }

  public GangSpec getGang() {
    return gang;
  }

  public void setGang(GangSpec gang) {
    this.gang = gang;
  }

  public PodTemplateSpec getTemplate() {
    return template;
  }

  public void setTemplate(PodTemplateSpec template) {
    this.template = template;
  }
}
