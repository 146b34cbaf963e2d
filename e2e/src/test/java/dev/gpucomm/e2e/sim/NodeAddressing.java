package dev.gpucomm.e2e.sim;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * What makes a pod's view of the cluster true on one machine: the job's service DNS name resolves
 * to the loopback address (each job gets its own free port there), the API server is the mock
 * server's URL, and files the container expects at fixed paths live in the pod's directory.
 */
record NodeAddressing(String apiServerUrl, ToIntFunction<String> rendezvousPortOfJob) {
  static final String RENDEZVOUS = "GPUCOMM_RENDEZVOUS";
  static final String KUBE_API = "GPUCOMM_KUBE_API";
  static final String TERMINATION_LOG = "GPUCOMM_TERMINATION_LOG";
  static final String JOB_FILE = "GPUCOMM_JOB_FILE";
  static final String JOB_FILE_IN_POD = "/etc/gpucomm/job.json";

  Map<String, String> overrides(
      String namespacedJob,
      Map<String, String> environment,
      Function<String, Path> localPath,
      Path terminationLog) {
    Map<String, String> overrides = new LinkedHashMap<>();
    if (environment.containsKey(RENDEZVOUS)) {
      // <job>-0.<job>.<ns>.svc:<port> is pod 0 of this job: on this node, the loopback address.
      overrides.put(
          RENDEZVOUS,
          NodeSimulator.NODE_ADDRESS + ":" + rendezvousPortOfJob.applyAsInt(namespacedJob));
    }
    overrides.put(KUBE_API, apiServerUrl);
    overrides.put(TERMINATION_LOG, terminationLog.toString());
    overrides.put(JOB_FILE, localPath.apply(JOB_FILE_IN_POD).toString());
    return overrides;
  }
}
