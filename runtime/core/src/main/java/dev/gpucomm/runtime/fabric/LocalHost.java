package dev.gpucomm.runtime.fabric;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** This rank's host as reports and fabric checks name it (in a pod: the pod's host name). */
public final class LocalHost {
  private LocalHost() {}

  public static String name() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown";
    }
  }
}
