package dev.gpucomm.runtime.hostir.programs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.runtime.hostir.interp.TimelineSpan;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The timelines of a traced pipelined run: as a Markdown table of one rank (which statement ran on
 * which stream, from when to when) and as a Chrome trace of every rank ({@value #FILE}: open it in
 * Perfetto or chrome://tracing; one process per rank, one thread per stream).
 */
final class ProgramTimelines {
  static final String FILE = "timeline.json";

  private static final ObjectMapper JSON = new ObjectMapper();

  private ProgramTimelines() {}

  /** The spans of one rank by start time, as a Markdown table; empty when there are none. */
  static String markdown(RankResult rank) {
    if (rank.timeline().isEmpty()) {
      return "";
    }
    StringBuilder text = new StringBuilder();
    text.append(
        String.format(
            Locale.ROOT,
            "%nTimeline of one pipelined run on rank %d (device time in ms from its start; a"
                + " statement's span starts when its stream reaches it):%n%n",
            rank.rank()));
    text.append("| stream | statement | start | end | time |\n|---|---|---:|---:|---:|\n");
    for (TimelineSpan span : byStart(rank.timeline())) {
      text.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %.3f | %.3f | %.3f |%n",
              span.stream(),
              span.what(),
              span.startMillis(),
              span.endMillis(),
              span.millis()));
    }
    return text.toString();
  }

  /** Every rank's spans in the Chrome trace event format; null when no rank traced a run. */
  static String chromeTrace(List<RankResult> ranks) {
    List<Map<String, Object>> events = new ArrayList<>();
    for (RankResult rank : ranks) {
      if (rank.timeline().isEmpty()) {
        continue;
      }
      events.add(metadata("process_name", rank.rank(), 0, "rank " + rank.rank()));
      Map<String, Integer> threads = new LinkedHashMap<>();
      for (TimelineSpan span : byStart(rank.timeline())) {
        Integer thread = threads.get(span.stream());
        if (thread == null) {
          thread = threadOf(span.stream());
          threads.put(span.stream(), thread);
          events.add(metadata("thread_name", rank.rank(), thread, span.stream()));
        }
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("name", span.what());
        event.put("ph", "X");
        event.put("ts", span.startMillis() * 1000);
        event.put("dur", span.millis() * 1000);
        event.put("pid", rank.rank());
        event.put("tid", thread);
        events.add(event);
      }
    }
    if (events.isEmpty()) {
      return null;
    }
    Map<String, Object> trace = new LinkedHashMap<>();
    trace.put("traceEvents", events);
    trace.put("displayTimeUnit", "ms");
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(trace);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("timeline could not be written as JSON", e);
    }
  }

  private static List<TimelineSpan> byStart(List<TimelineSpan> spans) {
    return spans.stream().sorted(Comparator.comparingDouble(TimelineSpan::startMillis)).toList();
  }

  /** main is thread 0, worker i thread i + 1. */
  private static int threadOf(String stream) {
    return stream.startsWith("worker ") ? Integer.parseInt(stream.substring(7)) + 1 : 0;
  }

  private static Map<String, Object> metadata(String kind, int pid, int tid, String name) {
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("name", kind);
    event.put("ph", "M");
    event.put("pid", pid);
    event.put("tid", tid);
    event.put("args", Map.of("name", name));
    return event;
  }
}
