package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.List;
import java.util.Map;

/** The pod-level fields a CommJob's template may set on its rank pods. */
public record RankPodSpec(
    @JsonPropertyDescription("Replaces the rank pods' node selector.")
        Map<String, String> nodeSelector,
    @JsonPropertyDescription("Replaces the rank pods' tolerations.") List<Toleration> tolerations,
    @JsonPropertyDescription(
            "Replaces the rank pods' affinity, including the default that puts every pod of a"
                + " cuda job on a node of its own (required pod anti-affinity on gpucomm.dev/job"
                + " over kubernetes.io/hostname).")
        Affinity affinity,
    @JsonPropertyDescription("Scheduler of the rank pods, for example a gang scheduler.")
        String schedulerName,
    @JsonPropertyDescription("Priority class of the rank pods.") String priorityClassName,
    @JsonPropertyDescription("Runtime class of the rank pods, for example nvidia.")
        String runtimeClassName,
    @JsonPropertyDescription(
            "Secrets the rank pods pull their image with; replaces the operator's default"
                + " (runtime.imagePullSecrets of the chart). Rank pods run under a per-job service"
                + " account, so the namespace default account's secrets do not apply.")
        List<LocalObjectReference> imagePullSecrets,
    @JsonPropertyDescription("Replaces the rank pods' topology spread constraints.")
        List<TopologySpreadConstraint> topologySpreadConstraints,
    @JsonPropertyDescription(
            "Volumes added to the rank pods; dshm and job-spec are the operator's.")
        List<Volume> volumes,
    @JsonPropertyDescription(
            "Runs the rank pods in the node's network namespace, so NCCL sees the host's NICs"
                + " (RDMA and TCP) without a CNI that exposes them; the operator then sets"
                + " dnsPolicy ClusterFirstWithHostNet so that the rendezvous name still resolves."
                + " Two jobs on one node then share its ports, and the job's namespace must enforce"
                + " the Pod Security privileged profile.")
        Boolean hostNetwork,
    @JsonPropertyDescription(
            "Dynamic resource allocation claims of the rank pods (an IMEX channel of a"
                + " ComputeDomain, RDMA NICs); reference them from"
                + " containers[0].resources.claims.")
        List<PodResourceClaim> resourceClaims,
    @Size(max = 1)
        @JsonPropertyDescription(
            "At most one entry, merged into the gpucomm container that runs the ranks.")
        List<RankContainer> containers) {}
