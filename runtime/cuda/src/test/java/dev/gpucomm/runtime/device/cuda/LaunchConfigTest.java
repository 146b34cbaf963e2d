package dev.gpucomm.runtime.device.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The CUlaunchConfig written for cuLaunchKernelEx has cuda.h's layout and this launch's values. */
class LaunchConfigTest {
  @Test
  void theStructsHaveTheLayoutOfCudaH() {
    // typedef struct CUlaunchConfig_st { unsigned gridDimX..Z, blockDimX..Z, sharedMemBytes;
    // CUstream hStream; CUlaunchAttribute *attrs; unsigned numAttrs; } on LP64.
    assertThat(LaunchConfig.CONFIG.byteSize()).isEqualTo(56);
    assertThat(offset("gridDimX")).isZero();
    assertThat(offset("blockDimX")).isEqualTo(12);
    assertThat(offset("sharedMemBytes")).isEqualTo(24);
    assertThat(offset("hStream")).isEqualTo(32);
    assertThat(offset("attrs")).isEqualTo(40);
    assertThat(offset("numAttrs")).isEqualTo(48);
    // CUlaunchAttribute: id, char pad[8 - sizeof(id)], a union padded to 64 bytes.
    assertThat(LaunchConfig.ATTRIBUTE.byteSize()).isEqualTo(72);
    assertThat(LaunchConfig.ATTRIBUTE.byteOffset(PathElement.groupElement("value"))).isEqualTo(8);
  }

  @Test
  void aProgrammaticLaunchCarriesOneSerializationAttributeAndThisLaunchsShape() {
    try (Arena arena = Arena.ofConfined()) {
      LaunchConfig config = LaunchConfig.of(arena, true, OptionalInt.empty());
      MemorySegment stream = MemorySegment.ofAddress(0x7000);
      MemorySegment struct = config.prepare(132, 512, stream);

      assertThat(struct.get(JAVA_INT, 0)).isEqualTo(132);
      assertThat(struct.get(JAVA_INT, 4)).isEqualTo(1);
      assertThat(struct.get(JAVA_INT, 8)).isEqualTo(1);
      assertThat(struct.get(JAVA_INT, 12)).isEqualTo(512);
      assertThat(struct.get(JAVA_INT, 16)).isEqualTo(1);
      assertThat(struct.get(JAVA_INT, 20)).isEqualTo(1);
      assertThat(struct.get(JAVA_INT, 24)).isZero();
      assertThat(struct.get(ADDRESS, 32).address()).isEqualTo(0x7000);
      assertThat(struct.get(JAVA_INT, 48)).isEqualTo(1);
      MemorySegment attribute =
          struct.get(ADDRESS, 40).reinterpret(LaunchConfig.ATTRIBUTE.byteSize());
      assertThat(attribute.get(JAVA_INT, 0))
          .isEqualTo(LaunchConfig.PROGRAMMATIC_STREAM_SERIALIZATION);
      assertThat(attribute.get(JAVA_INT, 8)).as("programmaticStreamSerializationAllowed").isOne();

      config.prepare(8, 256, MemorySegment.ofAddress(0x8000));
      assertThat(struct.get(JAVA_INT, 0)).isEqualTo(8);
      assertThat(struct.get(JAVA_INT, 12)).isEqualTo(256);
      assertThat(struct.get(ADDRESS, 32).address()).isEqualTo(0x8000);
    }
  }

  @Test
  void anOrdinaryLaunchHasNoAttributes() {
    try (Arena arena = Arena.ofConfined()) {
      LaunchConfig config = LaunchConfig.of(arena, false, OptionalInt.empty());
      assertThat(config.programmatic()).isFalse();
      assertThat(config.prepare(1, 32, MemorySegment.NULL).get(JAVA_INT, 48)).isZero();
    }
  }

  @Test
  void aPriorityFollowsTheSerializationAttribute() {
    try (Arena arena = Arena.ofConfined()) {
      LaunchConfig config = LaunchConfig.of(arena, true, OptionalInt.of(-5));
      MemorySegment struct = config.prepare(32, 512, MemorySegment.NULL);

      assertThat(struct.get(JAVA_INT, 48)).isEqualTo(2);
      MemorySegment attributes =
          struct.get(ADDRESS, 40).reinterpret(2 * LaunchConfig.ATTRIBUTE.byteSize());
      assertThat(attributes.get(JAVA_INT, 0))
          .isEqualTo(LaunchConfig.PROGRAMMATIC_STREAM_SERIALIZATION);
      assertThat(attributes.get(JAVA_INT, 72)).isEqualTo(LaunchConfig.PRIORITY);
      assertThat(attributes.get(JAVA_INT, 72 + 8)).as("priority").isEqualTo(-5);

      MemorySegment priorityOnly =
          LaunchConfig.of(arena, false, OptionalInt.of(-2)).prepare(1, 32, MemorySegment.NULL);
      assertThat(priorityOnly.get(JAVA_INT, 48)).isOne();
      assertThat(priorityOnly.get(ADDRESS, 40).reinterpret(72).get(JAVA_INT, 0))
          .isEqualTo(LaunchConfig.PRIORITY);
    }
  }

  @Test
  void aClusteredLaunchNamesItsClusterSizeAfterTheSerializationAttribute() {
    try (Arena arena = Arena.ofConfined()) {
      LaunchConfig config = LaunchConfig.withClusters(arena, true, OptionalInt.empty());
      MemorySegment struct = config.prepare(128, 256, 8, MemorySegment.NULL);

      assertThat(config.clustered()).isTrue();
      assertThat(struct.get(JAVA_INT, 0)).isEqualTo(128);
      assertThat(struct.get(JAVA_INT, 48)).isEqualTo(2);
      MemorySegment attributes =
          struct.get(ADDRESS, 40).reinterpret(2 * LaunchConfig.ATTRIBUTE.byteSize());
      assertThat(attributes.get(JAVA_INT, 0))
          .isEqualTo(LaunchConfig.PROGRAMMATIC_STREAM_SERIALIZATION);
      assertThat(attributes.get(JAVA_INT, 72)).isEqualTo(LaunchConfig.CLUSTER_DIMENSION);
      assertThat(attributes.get(JAVA_INT, 72 + 8)).as("clusterDim.x").isEqualTo(8);
      assertThat(attributes.get(JAVA_INT, 72 + 12)).as("clusterDim.y").isOne();
      assertThat(attributes.get(JAVA_INT, 72 + 16)).as("clusterDim.z").isOne();

      // The next launch of another row count takes smaller clusters on the same struct.
      config.prepare(132, 256, 2, MemorySegment.NULL);
      assertThat(attributes.get(JAVA_INT, 72 + 8)).as("clusterDim.x").isEqualTo(2);
      assertThat(struct.get(JAVA_INT, 0)).isEqualTo(132);
    }
  }

  @Test
  void aClusteredLaunchRefusesAGridOfPartClustersAndAnUnclusteredConfigAnyClusterSize() {
    try (Arena arena = Arena.ofConfined()) {
      LaunchConfig clustered = LaunchConfig.withClusters(arena, false, OptionalInt.empty());
      assertThatThrownBy(() -> clustered.prepare(132, 256, 8, MemorySegment.NULL))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("132 blocks");
      LaunchConfig plain = LaunchConfig.of(arena, true, OptionalInt.empty());
      assertThat(plain.clustered()).isFalse();
      assertThatThrownBy(() -> plain.prepare(128, 256, 8, MemorySegment.NULL))
          .isInstanceOf(IllegalStateException.class);
    }
  }

  private static long offset(String field) {
    return LaunchConfig.CONFIG.byteOffset(PathElement.groupElement(field));
  }
}
