package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.Optional;

/** A scheduler that places all of a job's pods at once, through a PodGroup of its own API. */
public enum GangScheduler {
  /** Volcano: PodGroup {@code scheduling.volcano.sh/v1beta1}, scheduler {@code volcano}. */
  @JsonProperty("volcano")
  VOLCANO("volcano", "volcano"),
  /**
   * The scheduler-plugins coscheduling plugin: PodGroup {@code scheduling.x-k8s.io/v1alpha1},
   * scheduler {@code scheduler-plugins-scheduler} as its Helm chart installs it.
   */
  @JsonProperty("coscheduling")
  COSCHEDULING("coscheduling", "scheduler-plugins-scheduler");

  private final String wireName;
  private final String defaultSchedulerName;

  GangScheduler(String wireName, String defaultSchedulerName) {
    this.wireName = wireName;
    this.defaultSchedulerName = defaultSchedulerName;
  }

  /** The name used in YAML and JSON. */
  public String wireName() {
    return wireName;
  }

  /** The pods' schedulerName when spec.gang.schedulerName is not set. */
  public String defaultSchedulerName() {
    return defaultSchedulerName;
  }

  /** The constant whose wire name is {@code text}, if any. */
  public static Optional<GangScheduler> fromWireName(String text) {
    return Arrays.stream(values()).filter(v -> v.wireName.equals(text)).findFirst();
  }

  @Override
  public String toString() {
    return wireName;
  }
}
