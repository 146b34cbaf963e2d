package dev.gpucomm.runtime.bench;

import dev.gpucomm.runtime.heuristic.TuningTable;
import dev.gpucomm.runtime.heuristic.TuningTableJson;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Function;

/**
 * The tuning table a sweep's automatic choices follow: rank 0 reads it and shares it through the
 * store. Every rank must choose the same algorithm for a size, and ranks that read a table each
 * could read two: a ConfigMap that a tune job rewrites while the pods start, or a file path that
 * names another file on each host. One read also spares the API server a GET per rank.
 */
final class SharedTuningTables {
  private SharedTuningTables() {}

  /**
   * A loader that reads through {@code rankZerosLoader} on rank 0 and returns on every other rank
   * the table rank 0 read, waiting up to {@code timeout} for it under {@code key}. Where rank 0
   * cannot read the table it fails, and the others learn of it through the store.
   */
  static Function<String, TuningTable> fromRankZero(
      Function<String, TuningTable> rankZerosLoader,
      KeyValueStore store,
      String key,
      int rank,
      Duration timeout) {
    if (rank == 0) {
      return reference -> {
        TuningTable table = rankZerosLoader.apply(reference);
        if (table != null) {
          store.set(key, TuningTableJson.write(table).getBytes(StandardCharsets.UTF_8));
        }
        return table;
      };
    }
    return reference ->
        TuningTableJson.parse(
            new String(store.get(key, timeout), StandardCharsets.UTF_8), "rank 0's " + reference);
  }
}
