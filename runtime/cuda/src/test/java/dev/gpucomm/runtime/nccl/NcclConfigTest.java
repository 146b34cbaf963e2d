package dev.gpucomm.runtime.nccl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The config handed to ncclCommInitRankConfig is NCCL 2.17.1's {@code struct ncclConfig_v21700}
 * byte for byte, as its nccl.h declares it on x86-64:
 *
 * <pre>
 * typedef struct ncclConfig_v21700 {
 *   size_t size; unsigned int magic; unsigned int version;
 *   int blocking; int cgaClusterSize; int minCTAs; int maxCTAs;
 *   const char *netName;
 * } ncclConfig_t;
 * #define NCCL_CONFIG_INITIALIZER { sizeof(ncclConfig_t), 0xcafebeef,
 *   NCCL_VERSION(NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH), NCCL_CONFIG_UNDEF_INT (x4),
 *   NCCL_CONFIG_UNDEF_PTR }
 * </pre>
 */
class NcclConfigTest {
  @Test
  void theLayoutHasTheHeadersOffsetsAndSize() {
    Map<String, Long> offsets = new LinkedHashMap<>();
    for (String field :
        new String[] {
          "size", "magic", "version", "blocking", "cgaClusterSize", "minCTAs", "maxCTAs", "netName"
        }) {
      offsets.put(
          field, NcclConfig.LAYOUT.byteOffset(MemoryLayout.PathElement.groupElement(field)));
    }

    assertThat(offsets)
        .containsExactly(
            Map.entry("size", 0L),
            Map.entry("magic", 8L),
            Map.entry("version", 12L),
            Map.entry("blocking", 16L),
            Map.entry("cgaClusterSize", 20L),
            Map.entry("minCTAs", 24L),
            Map.entry("maxCTAs", 28L),
            Map.entry("netName", 32L));
    assertThat(NcclConfig.LAYOUT.byteSize()).as("sizeof(ncclConfig_t)").isEqualTo(40L);
    assertThat(NcclConfig.LAYOUT.byteAlignment()).isEqualTo(8L);
  }

  @Test
  void theInitializerLeavesEveryFieldToNccl() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment config = NcclConfig.initializer(arena);

      assertThat(config.get(JAVA_LONG, 0)).as("size").isEqualTo(40L);
      assertThat(config.get(JAVA_INT, 8)).as("magic").isEqualTo(0xcafebeef);
      assertThat(config.get(JAVA_INT, 12)).as("version 2.17.1").isEqualTo(21701);
      for (long offset = 16; offset < 32; offset += 4) {
        assertThat(config.get(JAVA_INT, offset))
            .as("int field at " + offset)
            .isEqualTo(Integer.MIN_VALUE);
      }
      assertThat(config.get(ADDRESS, 32)).as("netName").isEqualTo(MemorySegment.NULL);
    }
  }

  @Test
  void aLimitedConfigSetsMaxCtasWithMinCtasBelowItAndBlocks() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment config = NcclConfig.limitedToCtas(arena, 32);

      assertThat(config.get(JAVA_INT, 16)).as("blocking").isEqualTo(1);
      assertThat(config.get(JAVA_INT, 20)).as("cgaClusterSize").isEqualTo(Integer.MIN_VALUE);
      assertThat(config.get(JAVA_INT, 24)).as("minCTAs").isEqualTo(1);
      assertThat(config.get(JAVA_INT, 28)).as("maxCTAs").isEqualTo(32);
      assertThat(config.get(JAVA_INT, 8)).as("magic").isEqualTo(0xcafebeef);
    }
  }

  @Test
  void aLimitBelowOneCtaIsRefused() {
    try (Arena arena = Arena.ofConfined()) {
      assertThatThrownBy(() -> NcclConfig.limitedToCtas(arena, 0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("maxCTAs must be at least 1, got 0");
    }
  }
}
