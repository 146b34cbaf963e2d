package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
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
    value = "self == oldSelf",
    message = "spec is immutable: create a new CommJob to run something else")
public class CommJobSpec {
  public static final String DEFAULT_SHARED_MEMORY = "8Gi";

  @Required
  @Min(1)
  @Max(4096)
  @JsonPropertyDescription("Total number of ranks (one GPU each for device cuda).")
  private Integer worldSize;

  @Default("" + CommJobDefaults.RANKS_PER_POD)
  @Min(1)
  @Max(16)
  @JsonPropertyDescription(
      "Ranks per pod, that is GPUs per node. Ranks of one pod share its IPC namespace, so custom"
          + " (CUDA IPC) algorithms run among them; must divide worldSize.")
  private Integer ranksPerPod;

  @Default(CommJobDefaults.DEVICE_NAME)
  @JsonPropertyDescription("Device backend of the ranks: cuda (one GPU per rank) or cpu.")
  private DeviceKind device;

  @Required
  @JsonPropertyDescription(
      "What the ranks run: a benchmark sweep, a host-IR program or a tuning sweep.")
  private Workload workload;

  @JsonPropertyDescription("How the auto algorithm is chosen per size; trtllm when omitted.")
  private Heuristic heuristic;

  @Default("" + CommJobDefaults.TIMEOUT_SECONDS)
  @Min(1)
  @Max(86400)
  @JsonPropertyDescription(
      "The job fails with reason Timeout when it has not finished this many seconds after its"
          + " pods were created (status.startTime): image pulls and rendezvous count, time"
          + " spent before the pods exist does not.")
  private Integer timeoutSeconds;

  @JsonPropertyDescription("Earlier results to compare with; sets the Regressed condition.")
  private Baseline baseline;

  @Size(min = 1, max = 64)
  @JsonPropertyDescription(
      "Pass/fail floors checked against the measured figures; sets the MeetsExpectations condition.")
  private List<Expectation> expect;

  @JsonPropertyDescription("What the job requires of the fabric between its ranks.")
  private NetworkSpec network;

  @Pattern("^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|k|M|G|T)?$")
  @JsonPropertyDescription(
      "Size of the memory-backed /dev/shm of each pod (NCCL needs far more than the container"
          + " default of 64Mi); 8Gi when omitted.")
  private String sharedMemorySize;

  // Typed as RankPodTemplate for admission and kubectl explain; read as a PodTemplateSpec so that
  // the operator can name a field the schema would not have let through.
  @SchemaFrom(type = RankPodTemplate.class)
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

  public PodTemplateSpec getTemplate() {
    return template;
  }

  public void setTemplate(PodTemplateSpec template) {
    this.template = template;
  }
}
