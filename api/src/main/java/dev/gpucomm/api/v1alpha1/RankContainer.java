package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.List;

/** What a CommJob's template may set on the container that runs a pod's ranks. */
public record RankContainer(
    @Pattern("^gpucomm$") @JsonPropertyDescription("gpucomm, or left out.") String name,
    @JsonPropertyDescription("Runtime image; the operator's default when left out.") String image,
    @JsonPropertyDescription("Pull policy of the runtime image.") String imagePullPolicy,
    @JsonPropertyDescription(
            "Merged into the container's resources, name by name. Defaults: requests.cpu ="
                + " ranksPerPod x the operator's CPU per rank, requests.memory = ranksPerPod x"
                + " its memory per rank, limits.memory = requests.memory + sharedMemorySize"
                + " (the pages of /dev/shm count against the limit), limits[nvidia.com/gpu] ="
                + " ranksPerPod for device cuda. Accepted names: cpu, memory,"
                + " ephemeral-storage, hugepages-*, nvidia.com/gpu, nvidia.com/hostdev, rdma/*,"
                + " vpc.amazonaws.com/efa.")
        ResourceRequirements resources,
    @JsonPropertyDescription(
            "Env vars replacing their namesakes or appended (NCCL_IB_HCA, NCCL_SOCKET_IFNAME,"
                + " ...); the GPUCOMM_* contract vars are the operator's.")
        List<EnvVar> env,
    @JsonPropertyDescription("Appended to the container's envFrom.") List<EnvFromSource> envFrom,
    @JsonPropertyDescription("Appended to the container's volume mounts.")
        List<VolumeMount> volumeMounts,
    @JsonPropertyDescription("Capabilities added to the container; nothing else of it may change.")
        RankSecurityContext securityContext) {}
