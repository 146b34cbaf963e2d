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

  /** Takes the pod's network away once its processes have ended. */
  void disconnect(PodSlot pod);
}
