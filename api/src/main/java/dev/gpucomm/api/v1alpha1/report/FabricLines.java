package dev.gpucomm.api.v1alpha1.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The fabric of a report in a few lines, one per communicator and distinct summary, naming its
 * ranks: {@code world, ranks 0,1: intra-node p2p (NVL); inter-node socket via eth0}. What report.md
 * and a CommJob's {@code status.fabric} show.
 */
public final class FabricLines {
  private FabricLines() {}

  /** The lines of {@code fabric}, communicators in the order they first appear. */
  public static List<String> of(List<RankFabric> fabric) {
    Map<String, Map<String, List<Integer>>> byCommunicator = new LinkedHashMap<>();
    for (RankFabric rank : fabric) {
      byCommunicator
          .computeIfAbsent(rank.communicator(), name -> new LinkedHashMap<>())
          .computeIfAbsent(rank.summary(), summary -> new ArrayList<>())
          .add(rank.rank());
    }
    List<String> lines = new ArrayList<>();
    byCommunicator.forEach(
        (communicator, bySummary) ->
            bySummary.forEach(
                (summary, ranks) ->
                    lines.add(
                        communicator
                            + (ranks.size() == 1 ? ", rank " : ", ranks ")
                            + ranks.stream()
                                .sorted()
                                .map(String::valueOf)
                                .collect(Collectors.joining(","))
                            + ": "
                            + summary)));
    return List.copyOf(lines);
  }
}
