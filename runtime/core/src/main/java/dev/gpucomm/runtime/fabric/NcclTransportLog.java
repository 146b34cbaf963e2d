package dev.gpucomm.runtime.fabric;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What NCCL's INFO log says about the transports it chose: the connection lines that each transport
 * prints when a channel connects ({@code Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read}, {@code
 * ... [send] via NET/IB/0/GDRDMA}) and the lines naming the network and its NICs ({@code NET/IB :
 * Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE ; OOB eth0:...}).
 *
 * <p>Only those lines are read; every other line (and a log of another NCCL version that words them
 * differently) is skipped, so an unknown format yields no connections rather than a guess.
 */
public final class NcclTransportLog {
  private static final Pattern CONNECTION =
      Pattern.compile(
          "Channel \\d+(?:/\\d+)? : (\\d+)\\[[^\\]]*\\] -> (\\d+)\\[[^\\]]*\\]"
              + "(?: \\[(?:send|receive)\\])? via (\\S+(?: [A-Za-z][\\w-]*)?)");
  private static final Pattern NIC_LIST = Pattern.compile("NET/(\\S+) : Using (.*)");
  private static final Pattern NIC = Pattern.compile("\\[\\d+\\]([^\\s\\[;]+)");
  // the topology search's result, e.g. "Pattern 4, crossNic 0, nChannels 16, ..., type NVL/PIX"
  private static final Pattern GRAPH_TYPE = Pattern.compile("Pattern \\d+, .*type (\\w+)/\\w+");

  private final List<PeerConnection> connections;
  private final Set<String> nics;
  private final boolean roce;
  private final Set<String> intraNodePaths;

  private NcclTransportLog(
      List<PeerConnection> connections, Set<String> nics, boolean roce, Set<String> paths) {
    this.connections = connections;
    this.nics = nics;
    this.roce = roce;
    this.intraNodePaths = paths;
  }

  /** Reads the lines of one rank's NCCL log (NCCL_DEBUG=INFO, subsystems INIT, NET and GRAPH). */
  public static NcclTransportLog parse(List<String> lines) {
    List<String> viaLines = new ArrayList<>();
    Set<String> nics = new LinkedHashSet<>();
    Set<String> paths = new LinkedHashSet<>();
    boolean roce = false;
    for (String line : lines) {
      Matcher graph = GRAPH_TYPE.matcher(line);
      if (graph.find()) {
        paths.add(graph.group(1));
        continue;
      }
      Matcher nicList = NIC_LIST.matcher(line);
      if (nicList.find()) {
        boolean sockets = nicList.group(1).equals("Socket");
        String used = nicList.group(2);
        int oob = used.indexOf(" ; OOB");
        Matcher nic = NIC.matcher(oob < 0 ? used : used.substring(0, oob));
        while (nic.find()) {
          String name = nic.group(1);
          roce |= name.endsWith("/RoCE");
          // IB ports read device:port (mlx5_0:1); sockets interface:address<index> (eth0)
          nics.add(
              sockets
                  ? name.substring(0, name.indexOf(':') < 0 ? name.length() : name.indexOf(':'))
                  : name.replaceAll("/(IB|RoCE)$", ""));
        }
      } else if (line.contains(" via ")) {
        viaLines.add(line);
      }
    }
    List<PeerConnection> connections = new ArrayList<>();
    for (String line : viaLines) {
      Matcher connection = CONNECTION.matcher(line);
      if (connection.find()) {
        String detail = connection.group(3);
        connections.add(
            new PeerConnection(
                Integer.parseInt(connection.group(1)),
                Integer.parseInt(connection.group(2)),
                classify(detail, roce),
                detail));
      }
    }
    return new NcclTransportLog(
        List.copyOf(connections), Set.copyOf(nics), roce, Set.copyOf(paths));
  }

  /** The transport class NCCL's name for a transport stands for. */
  static TransportClass classify(String detail, boolean roce) {
    if (detail.startsWith("P2P")) {
      return TransportClass.P2P;
    }
    if (detail.startsWith("SHM")) {
      return TransportClass.SHM;
    }
    if (detail.startsWith("COLLNET")) {
      return TransportClass.COLLNET;
    }
    if (detail.startsWith("NET/IB")) {
      return roce ? TransportClass.ROCE : TransportClass.IB;
    }
    if (detail.startsWith("NET/Socket")) {
      return TransportClass.SOCKET;
    }
    return TransportClass.PLUGIN;
  }

  /** Every connection the log shows, in the order NCCL set them up. */
  public List<PeerConnection> connections() {
    return connections;
  }

  /** The NICs NCCL's network transport said it uses (empty when no network was set up). */
  public Set<String> nics() {
    return nics;
  }

  /**
   * The path types NCCL's topology search found between this node's GPUs ({@code NVL} for NVLink,
   * {@code PIX}, {@code PXB}, {@code PHB}, {@code SYS} for PCIe paths); empty without its GRAPH
   * log.
   */
  public Set<String> intraNodePaths() {
    return intraNodePaths;
  }

  /** Whether the IB transport's ports are RoCE ports. */
  public boolean roce() {
    return roce;
  }
}
