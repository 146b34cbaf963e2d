package dev.gpucomm.e2e.sim;

import java.util.List;

/**
 * How the simulated node connects its pods: all on the loopback address of this machine, or each in
 * a network namespace of its own on a bridge.
 */
sealed interface PodNetworking permits SharedLoopback, NamespacePerPod {
  /** The address other pods reach this pod at. */
  String address(PodSlot pod);

  /** Where the job's rendezvous store (hosted by pod 0) is reached, given its declared port. */
  String rendezvous(PodSlot pod, int declaredPort);

  /** Gives the pod its network; returns the words that run its command inside it. */
  List<String> connect(PodSlot pod);

  /**
   * The node a pod runs on, as the downward API's spec.nodeName reads it when the pod names none:
   * one node for pods sharing this machine's loopback, a node of its own for a pod on its own link,
   * so that reports can tell the pods' nodes apart.
   */
  default String nodeName(PodSlot pod) {
    return "sim-node";
  }

  /** Takes the pod's network away once its processes have ended. */
  void disconnect(PodSlot pod);
}
