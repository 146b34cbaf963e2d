package dev.gpucomm.e2e.cluster;

import dev.gpucomm.e2e.sim.PodNetwork.LinkLimit;
import dev.gpucomm.e2e.sim.PodNetwork.TcpConnection;
import java.util.List;

/** What a scenario may do to the network link of one pod of a running job. */
public interface PodLinks {
  /** Cuts the pod's link, as a pulled cable does: nothing goes in or out, no error is sent. */
  void cut(String job, int podIndex);

  /** Limits the rate of the pod's link in both directions. */
  void limit(String job, int podIndex, LinkLimit limit);

  /** The TCP connections of the pod's processes that are established now. */
  List<TcpConnection> connections(String job, int podIndex);
}
