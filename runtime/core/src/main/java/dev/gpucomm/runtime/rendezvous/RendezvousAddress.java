package dev.gpucomm.runtime.rendezvous;

import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.spec.AsciiIntegers;

/** Where the rendezvous store listens: {@code host:port}, as in env GPUCOMM_RENDEZVOUS. */
public record RendezvousAddress(String host, int port) {
  public RendezvousAddress {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("rendezvous host is empty");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("rendezvous port " + port + " is outside 1..65535");
    }
  }

  /** Parses {@code host:port}; {@code origin} (e.g. "GPUCOMM_RENDEZVOUS") names it in errors. */
  public static RendezvousAddress parse(String text, String origin) {
    if (text == null || text.isBlank()) {
      throw new UsageException(origin + ": required (host:port of the rendezvous store)");
    }
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new UsageException(origin + ": '" + text + "' is not host:port");
    }
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    if (host.isBlank()) {
      throw new UsageException(origin + ": '" + text + "' has no host");
    }
    if (host.contains("[") || host.contains("]")) {
      // a bracket left over is no host name: the ranks would retry it until their timeout
      throw new UsageException(
          origin + ": '" + text + "' is not host:port (an IPv6 host in brackets: [::1]:29500)");
    }
    int port;
    try {
      port = AsciiIntegers.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new UsageException(origin + ": '" + text + "' has no numeric port");
    }
    if (port < 1 || port > 65535) {
      throw new UsageException(origin + ": port " + port + " is outside 1..65535");
    }
    return new RendezvousAddress(host, port);
  }

  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }
}
