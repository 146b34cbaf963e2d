package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** The part of the rank container's security context a CommJob may change: added capabilities. */
public record RankSecurityContext(
    @JsonPropertyDescription("Capabilities added to the container; every other one stays dropped.")
        RankCapabilities capabilities) {}
