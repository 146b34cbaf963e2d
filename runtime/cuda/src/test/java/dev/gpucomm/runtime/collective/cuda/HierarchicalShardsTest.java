package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Hierarchical all-reduce cuts each chunk into one shard per local rank that covers it exactly. */
class HierarchicalShardsTest {
  @ParameterizedTest
  @CsvSource({"1000003, 4", "8, 8", "3, 4", "1, 1", "17, 2", "0, 2"})
  void theShardsOfAChunkAddUpToItAndOnlyTheLastIsShort(long elements, int localWorld) {
    long per = HierarchicalAllReduce.shardElements(elements, localWorld);
    long[] shards =
        IntStream.range(0, localWorld)
            .mapToLong(shard -> HierarchicalAllReduce.elementsOfShard(elements, localWorld, shard))
            .toArray();

    assertThat(Arrays.stream(shards).sum()).isEqualTo(elements);
    for (long size : shards) {
      assertThat(size).isBetween(0L, per);
    }
    for (int shard = 0; shard + 1 < localWorld; shard++) {
      assertThat(shards[shard]).isGreaterThanOrEqualTo(shards[shard + 1]);
    }
  }
}
