package dev.gpucomm.runtime.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Brings every rank's figures to rank 0 through the store and merges them per point and algorithm
 * by taking the slowest rank's median (as nccl-tests reports the maximum over ranks): a collective
 * is only done when its last rank is. Every rank's own figures are kept beside the merge, so that a
 * report can say which rank was the slow one.
 */
public final class FigureGather {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<List<PointFigures>> LIST = new TypeReference<>() {};

  private FigureGather() {}

  /**
   * The merge in rank 0's order, and every rank's own figures in rank order (on other ranks: their
   * own figures, both times).
   */
  public record Gathered(List<PointFigures> merged, List<PointFigures> perRank) {}

  /**
   * Publishes this rank's figures under {@code key}; rank 0 then waits for every rank's and returns
   * the merge, in rank 0's order. Other ranks return their own figures.
   */
  public static Gathered gather(
      KeyValueStore store,
      String key,
      int rank,
      int worldSize,
      List<PointFigures> own,
      Duration timeout) {
    try {
      store.set(key + "/" + rank, JSON.writeValueAsBytes(own));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    if (rank != 0) {
      return new Gathered(own, own);
    }
    List<PointFigures> perRank = new ArrayList<>(own);
    Map<String, PointFigures> merged = new LinkedHashMap<>();
    for (PointFigures figures : own) {
      merged.put(figures.pointIndex() + "/" + figures.algorithm(), figures);
    }
    for (int other = 1; other < worldSize; other++) {
      List<PointFigures> theirs;
      try {
        theirs = JSON.readValue(store.get(key + "/" + other, timeout), LIST);
      } catch (IOException e) {
        throw new UncheckedIOException("rank " + other + " sent unreadable figures", e);
      }
      perRank.addAll(theirs);
      for (PointFigures figures : theirs) {
        merged.merge(
            figures.pointIndex() + "/" + figures.algorithm(), figures, PointFigures::slowest);
      }
    }
    return new Gathered(new ArrayList<>(merged.values()), perRank);
  }
}
