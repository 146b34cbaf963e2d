package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/** Capabilities a CommJob adds to its rank container, from {@link RankCapability}'s list. */
public record RankCapabilities(
    @JsonPropertyDescription(
            "IPC_LOCK lets RDMA pin memory beyond the memlock limit, SYS_RESOURCE lets it raise"
                + " that limit. Either takes the pod out of the Pod Security restricted profile:"
                + " its namespace must allow baseline.")
        List<RankCapability> add) {}
