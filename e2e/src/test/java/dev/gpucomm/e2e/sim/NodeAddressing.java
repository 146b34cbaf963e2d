package dev.gpucomm.e2e.sim;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * What makes a pod's view of the cluster true on one machine: the job's service DNS name of pod 0
 * becomes pod 0's address on the node's pod network, the pod learns its own address, the API server
 * is the mock server's URL, and files the container expects at fixed paths live in the pod's
 * directory.
 */
record NodeAddressing(String apiServerUrl, PodNetworking networking) {
  static final String RENDEZVOUS = "GPUCOMM_RENDEZVOUS";
  static final String POD_ADDRESS = "GPUCOMM_POD_ADDRESS";
  static final String KUBE_API = "GPUCOMM_KUBE_API";
  static final String TERMINATION_LOG = "GPUCOMM_TERMINATION_LOG";
  static final String JOB_FILE = "GPUCOMM_JOB_FILE";
  static final String JOB_FILE_IN_POD = "/etc/gpucomm/job.json";

  /** The rendezvous port when the operator's value names none. */
  private static final int DEFAULT_RENDEZVOUS_PORT = 29500;

  Map<String, String> overrides(
      PodSlot pod,
      Map<String, String> environment,
      Function<String, Path> localPath,
      Path terminationLog) {
    Map<String, String> overrides = new LinkedHashMap<>();
    if (environment.containsKey(RENDEZVOUS)) {
      // <job>-0.<job>.<ns>.svc:<port> is pod 0 of this job.
      overrides.put(
          RENDEZVOUS, networking.rendezvous(pod, declaredPort(environment.get(RENDEZVOUS))));
    }
    overrides.put(POD_ADDRESS, networking.address(pod));
    overrides.put(KUBE_API, apiServerUrl);
    overrides.put(TERMINATION_LOG, terminationLog.toString());
    overrides.put(JOB_FILE, localPath.apply(JOB_FILE_IN_POD).toString());
    return overrides;
  }

  private static int declaredPort(String hostAndPort) {
    int colon = hostAndPort.lastIndexOf(':');
    try {
      return colon < 0
          ? DEFAULT_RENDEZVOUS_PORT
          : Integer.parseInt(hostAndPort.substring(colon + 1).strip());
    } catch (NumberFormatException e) {
      return DEFAULT_RENDEZVOUS_PORT;
    }
  }
}
