package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/** Capabilities a CommJob adds to its rank container, from {@link RankCapability}'s list. */
public record RankCapabilities(
    @JsonPropertyDescription(
            "IPC_LOCK lets RDMA pin memory beyond the memlock limit, SYS_RESOURCE lets it raise"
                + " that limit. Neither is in the Pod Security restricted or baseline profile: the"
                + " job's namespace must enforce privileged.")
        List<RankCapability> add) {}
