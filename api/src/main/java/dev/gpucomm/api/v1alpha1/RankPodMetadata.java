package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Map;

/** Labels and annotations a CommJob adds to its rank pods. */
public record RankPodMetadata(
    @JsonPropertyDescription(
            "Labels added to every rank pod; gpucomm.dev/job, gpucomm.dev/job-uid,"
                + " gpucomm.dev/pod-index and gpucomm.dev/restart-attempt are the operator's.")
        Map<String, String> labels,
    @JsonPropertyDescription(
            "Annotations added to every rank pod (Multus networks, service mesh opt-outs, ...).")
        Map<String, String> annotations) {}
