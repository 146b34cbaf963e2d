package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.runtime.hostir.interp.TimelineSpan;
import java.util.List;

/**
 * One rank's times and validation, and the timeline of one traced run of its pipelined form (empty
 * when none was traced).
 */
public record RankResult(
    int rank, FormTimes times, Validation validation, List<TimelineSpan> timeline) {
  public RankResult {
    timeline = timeline == null ? List.of() : List.copyOf(timeline);
  }
}
