package dev.gpucomm.runtime.numeric;

/**
 * Whether the block conversions may use the JDK's Vector API ({@code jdk.incubator.vector}), which
 * turns a bf16 reduction into a few vector instructions per 16 or 32 elements where the
 * auto-vectorized loops of {@link Bf16Blocks} need several passes through scratch arrays.
 *
 * <p>The module is an incubator module: it is present only when the JVM was started with {@code
 * --add-modules=jdk.incubator.vector}, which the launcher gives the ranks it starts (see {@code
 * JavaCommand}). Without it, or with {@value #SWITCH}{@code =off}, the conversions take the
 * auto-vectorized path. Both paths keep the same block order and give bit-identical results, so
 * ranks of one job may differ in this.
 */
public final class VectorUnits {
  /** The environment variable that turns the Vector API paths off ({@code off}). */
  public static final String SWITCH = "GPUCOMM_CPU_VECTOR";

  /** The incubator module that holds the Vector API. */
  public static final String MODULE = "jdk.incubator.vector";

  /** True when the Vector API is in this JVM's boot layer and not switched off. */
  public static final boolean IN_USE =
      ModuleLayer.boot().findModule(MODULE).isPresent()
          && !"off".equals(System.getenv(SWITCH))
          && Bf16Blocks.SUPPORTED;

  private VectorUnits() {}
}
