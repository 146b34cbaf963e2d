package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** Gang scheduling of a job's pods: all of them are placed together, or none is. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class GangSpec {
  @Required
  @JsonPropertyDescription(
      "volcano (PodGroup scheduling.volcano.sh/v1beta1) or coscheduling (the scheduler-plugins"
          + " PodGroup scheduling.x-k8s.io/v1alpha1). The operator creates a PodGroup named after"
          + " the job with minMember = the job's pod count and minResources = what its pods request"
          + " together.")
  private GangScheduler scheduler;

  @Pattern("^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
  @JsonPropertyDescription(
      "schedulerName of the pods; volcano, or scheduler-plugins-scheduler for coscheduling, when"
          + " omitted.")
  private String schedulerName;

  @JsonPropertyDescription("Volcano queue of the PodGroup; Volcano's default queue when omitted.")
  private String queue;

  public GangScheduler getScheduler() {
    return scheduler;
  }

  public void setScheduler(GangScheduler scheduler) {
    this.scheduler = scheduler;
  }

  public GangSpec withScheduler(GangScheduler scheduler) {
    this.scheduler = scheduler;
    return this;
  }

  public String getSchedulerName() {
    return schedulerName;
  }

  public void setSchedulerName(String schedulerName) {
    this.schedulerName = schedulerName;
  }

  public String getQueue() {
    return queue;
  }

  public void setQueue(String queue) {
    this.queue = queue;
  }
}
