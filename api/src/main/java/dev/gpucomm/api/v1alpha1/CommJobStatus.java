package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/** Observed state of a CommJob, written only by the operator. */
@JsonClassDescription(
    "Observed state of the job, written by the operator: phase, conditions and results.")
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CommJobStatus {
  @JsonPropertyDescription("Pending, Running, Succeeded or Failed.")
  private Phase phase;

  @JsonPropertyDescription(
      "Kubernetes-style conditions, one per type: Ready (all pods running), Succeeded, Failed"
          + " (reason says why: RankFailed, Timeout, Unschedulable, InvalidSpec...), Suspended"
          + " (spec.suspend), Restarting (True, with the kind of failure as its reason, while a"
          + " failed run's pods go before spec.failurePolicy starts the job afresh; False once"
          + " the new run begins, or when none does), Queued (True while a queue holds the"
          + " pods back: scheduling gates, or a Volcano queue that has not admitted the job's"
          + " PodGroup; the scheduling timeouts run from its turn to False), SpecChanged (a"
          + " field that says what the job runs was edited after it started), and the verdicts on results: Regressed (against spec.baseline),"
          + " MeetsExpectations (spec.expect) and Degraded (a fabric sweep found a slow node,"
          + " GPU pair or link).")
  private List<Condition> conditions;

  @JsonPropertyDescription("The metadata.generation this status describes.")
  private Long observedGeneration;

  @JsonPropertyDescription(
      "When the job's pods were created (RFC 3339); cleared while it is suspended or restarting.")
  private String startTime;

  @JsonPropertyDescription(
      "When all the job's pods were first running (RFC 3339); spec.timeoutSeconds counts from"
          + " here.")
  private String runningTime;

  @JsonPropertyDescription(
      "How many times spec.failurePolicy started the job afresh after a failure; omitted before"
          + " the first restart.")
  private Integer restarts;

  @JsonPropertyDescription("When the job succeeded or failed (RFC 3339).")
  private String completionTime;

  @JsonPropertyDescription("One row per measured size, from the results report.")
  private List<SizeSummary> summary;

  @JsonPropertyDescription("The fastest algorithm at the largest size measured.")
  private String best;

  @JsonPropertyDescription(
      "The ConfigMap that holds the full report (report.json, report.md, latency.svg).")
  private String reportRef;

  @JsonPropertyDescription(
      "The transports NCCL chose, one line per communicator and distinct view: the ranks, the"
          + " intra-node transport and the inter-node transport with its NICs.")
  private List<String> fabric;

  public Integer getRestarts() {
    return restarts;
  }

  public void setRestarts(Integer restarts) {
    this.restarts = restarts;
  }

  public Phase getPhase() {
    return phase;
  }

  public void setPhase(Phase phase) {
    this.phase = phase;
  }

  public CommJobStatus withPhase(Phase phase) {
    this.phase = phase;
    return this;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public CommJobStatus withConditions(List<Condition> conditions) {
    this.conditions = conditions;
    return this;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public CommJobStatus withObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
    return this;
  }

  public String getStartTime() {
    return startTime;
  }

  public void setStartTime(String startTime) {
    this.startTime = startTime;
  }

  public CommJobStatus withStartTime(String startTime) {
    this.startTime = startTime;
    return this;
  }

  public String getRunningTime() {
    return runningTime;
  }

  public void setRunningTime(String runningTime) {
    this.runningTime = runningTime;
  }

  public CommJobStatus withRunningTime(String runningTime) {
    this.runningTime = runningTime;
    return this;
  }

  public String getCompletionTime() {
    return completionTime;
  }

  public void setCompletionTime(String completionTime) {
    this.completionTime = completionTime;
  }

  public CommJobStatus withCompletionTime(String completionTime) {
    this.completionTime = completionTime;
    return this;
  }

  public List<SizeSummary> getSummary() {
    return summary;
  }

  public void setSummary(List<SizeSummary> summary) {
    this.summary = summary;
  }

  public CommJobStatus withSummary(List<SizeSummary> summary) {
    this.summary = summary;
    return this;
  }

  public List<String> getFabric() {
    return fabric;
  }

  public void setFabric(List<String> fabric) {
    this.fabric = fabric;
  }

  public CommJobStatus withFabric(List<String> fabric) {
    this.fabric = fabric;
    return this;
  }

  public String getBest() {
    return best;
  }

  public void setBest(String best) {
    this.best = best;
  }

  public CommJobStatus withBest(String best) {
    this.best = best;
    return this;
  }

  public String getReportRef() {
    return reportRef;
  }

  public void setReportRef(String reportRef) {
    this.reportRef = reportRef;
  }

  public CommJobStatus withReportRef(String reportRef) {
    this.reportRef = reportRef;
    return this;
  }
}
