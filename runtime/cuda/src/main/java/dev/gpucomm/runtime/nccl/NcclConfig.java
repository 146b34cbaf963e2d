package dev.gpucomm.runtime.nccl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * The {@code ncclConfig_t} that ncclCommInitRankConfig reads, laid out as NCCL 2.17.1's nccl.h
 * declares it ({@code struct ncclConfig_v21700}: size, magic, version, blocking, cgaClusterSize,
 * minCTAs, maxCTAs, netName; 40 bytes). Later NCCL releases only append fields and read a config by
 * its own {@code size} and {@code version}, taking their defaults for everything after it, so this
 * layout, the oldest with minCTAs and maxCTAs, works with every NCCL from 2.17 on (2.28 on the GPU
 * hosts).
 */
public final class NcclConfig {
  /** NCCL_CONFIG_UNDEF_INT (INT_MIN): an int field NCCL chooses itself. */
  static final int UNDEF_INT = Integer.MIN_VALUE;

  /** The magic every initialized config carries (NCCL_CONFIG_INITIALIZER's second field). */
  static final int MAGIC = 0xcafebeef;

  /** NCCL_VERSION(2, 17, 1), the release whose header this layout follows. */
  static final int VERSION = 21701;

  static final StructLayout LAYOUT =
      MemoryLayout.structLayout(
              JAVA_LONG.withName("size"),
              JAVA_INT.withName("magic"),
              JAVA_INT.withName("version"),
              JAVA_INT.withName("blocking"),
              JAVA_INT.withName("cgaClusterSize"),
              JAVA_INT.withName("minCTAs"),
              JAVA_INT.withName("maxCTAs"),
              ADDRESS.withName("netName"))
          .withName("ncclConfig_v21700");

  private static final VarHandle SIZE = field("size");
  private static final VarHandle MAGIC_FIELD = field("magic");
  private static final VarHandle VERSION_FIELD = field("version");
  private static final VarHandle BLOCKING = field("blocking");
  private static final VarHandle CGA_CLUSTER_SIZE = field("cgaClusterSize");
  private static final VarHandle MIN_CTAS = field("minCTAs");
  private static final VarHandle MAX_CTAS = field("maxCTAs");
  private static final VarHandle NET_NAME = field("netName");

  private NcclConfig() {}

  /**
   * A config as NCCL_CONFIG_INITIALIZER makes it, except that every collective runs on at most
   * {@code maxCtas} CTAs (NCCL caps it further at its channel limit) and at least one, and that
   * initialization blocks until the communicator is ready, as ncclCommInitRank does.
   */
  static MemorySegment limitedToCtas(Arena arena, int maxCtas) {
    if (maxCtas < 1) {
      throw new IllegalArgumentException("maxCTAs must be at least 1, got " + maxCtas);
    }
    MemorySegment config = initializer(arena);
    BLOCKING.set(config, 0L, 1);
    MIN_CTAS.set(config, 0L, 1);
    MAX_CTAS.set(config, 0L, maxCtas);
    return config;
  }

  /** NCCL_CONFIG_INITIALIZER of the 2.17.1 header: every field left to NCCL. */
  static MemorySegment initializer(Arena arena) {
    MemorySegment config = arena.allocate(LAYOUT);
    SIZE.set(config, 0L, LAYOUT.byteSize());
    MAGIC_FIELD.set(config, 0L, MAGIC);
    VERSION_FIELD.set(config, 0L, VERSION);
    BLOCKING.set(config, 0L, UNDEF_INT);
    CGA_CLUSTER_SIZE.set(config, 0L, UNDEF_INT);
    MIN_CTAS.set(config, 0L, UNDEF_INT);
    MAX_CTAS.set(config, 0L, UNDEF_INT);
    NET_NAME.set(config, 0L, MemorySegment.NULL);
    return config;
  }

  private static VarHandle field(String name) {
    return LAYOUT.varHandle(MemoryLayout.PathElement.groupElement(name));
  }
}
