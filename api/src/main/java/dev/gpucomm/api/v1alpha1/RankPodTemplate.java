package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * The schema of {@code spec.template}: the parts of a pod template that the operator merges into
 * every rank pod, and nothing else, so that {@code kubectl explain} shows them and a misspelt field
 * is rejected at admission.
 *
 * <p>The operator reads the template as a full {@code PodTemplateSpec} rather than as this type, so
 * that a field an API server let through anyway (one that served an older, untyped version of the
 * CRD) is reported by name as {@code InvalidSpec} instead of being dropped without a word.
 */
@JsonClassDescription(
    "Pod template overlay merged into every rank pod. Only the fields listed here are accepted;"
        + " see RankPodSpec for how each is merged.")
public record RankPodTemplate(
    @JsonPropertyDescription(
            "Labels and annotations added to every rank pod, for example Multus's"
                + " k8s.v1.cni.cncf.io/networks annotation that attaches RDMA or secondary NICs.")
        RankPodMetadata metadata,
    @JsonPropertyDescription("Scheduling, networking and container fields of every rank pod.")
        RankPodSpec spec) {}
