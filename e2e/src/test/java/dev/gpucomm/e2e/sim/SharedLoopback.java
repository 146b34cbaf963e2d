package dev.gpucomm.e2e.sim;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every pod on this machine's loopback address. Pods share one port space, so each job's rendezvous
 * store gets a free port of its own instead of the one the operator declared.
 */
final class SharedLoopback implements PodNetworking {
  static final String ADDRESS = "127.0.0.1";

  private final Map<String, Integer> rendezvousPorts = new ConcurrentHashMap<>();

  @Override
  public String address(PodSlot pod) {
    return ADDRESS;
  }

  @Override
  public String rendezvous(PodSlot pod, int declaredPort) {
    // a restarted run's store must not meet the failed run's, which may still be stopping
    String job = pod.namespace() + "/" + pod.job() + "#" + pod.attempt();
    return ADDRESS + ":" + rendezvousPorts.computeIfAbsent(job, j -> FreePort.pick());
  }

  @Override
  public List<String> connect(PodSlot pod) {
    return List.of();
  }

  @Override
  public void disconnect(PodSlot pod) {}
}
