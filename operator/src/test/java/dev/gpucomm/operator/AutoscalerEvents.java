package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;

/** Events as node autoscalers record them on the pods they bring nodes for. */
final class AutoscalerEvents {
  static final String CLUSTER_AUTOSCALER = "cluster-autoscaler";
  static final String SCALE_UP = "pod triggered scale-up: [{gpu-pool 0->1 (max: 4)}]";
  static final String NO_SCALE_UP =
      "pod didn't trigger scale-up: 1 max node group size reached, 2 node(s) didn't match"
          + " Pod's node affinity/selector";

  private AutoscalerEvents() {}

  /**
   * An Event as cluster-autoscaler and Karpenter write it (core/v1, with first and last timestamps
   * and a count), on {@code pod}.
   */
  static Event legacy(
      String reason, String component, Pod pod, Instant first, Instant last, String text) {
    return on(pod, reason, first)
        .withMessage(text)
        .withCount(1)
        .withFirstTimestamp(first.toString())
        .withLastTimestamp(last.toString())
        .withNewSource()
        .withComponent(component)
        .endSource()
        .build();
  }

  /** An Event as an events.k8s.io/v1 recorder writes it: an event time and a series. */
  static Event series(String reason, String component, Pod pod, Instant first, Instant last) {
    return on(pod, reason, first)
        .withMessage("Pod should schedule on: nodeclaim/gpu-x7k2q")
        .withEventTime(new MicroTime(first.toString()))
        .withNewSeries()
        .withCount(3)
        .withLastObservedTime(new MicroTime(last.toString()))
        .endSeries()
        .withReportingComponent(component)
        .withReportingInstance(component + "-0")
        .withAction("Nominate")
        .build();
  }

  /** An Event of {@code reason} about {@code pod}, first said at {@code first}. */
  private static EventBuilder on(Pod pod, String reason, Instant first) {
    return new EventBuilder()
        .withNewMetadata()
        .withName(
            "%s.%x.%s"
                .formatted(pod.getMetadata().getName(), first.toEpochMilli(), reason.toLowerCase()))
        .withNamespace(pod.getMetadata().getNamespace())
        .endMetadata()
        .withNewInvolvedObject()
        .withKind("Pod")
        .withApiVersion("v1")
        .withName(pod.getMetadata().getName())
        .withNamespace(pod.getMetadata().getNamespace())
        .withUid(pod.getMetadata().getUid())
        .endInvolvedObject()
        .withReason(reason)
        .withType("Normal");
  }
}
