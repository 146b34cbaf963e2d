package dev.gpucomm.runtime.device.cpu;

import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.launch.EnvVars;
import java.util.Map;

/**
 * Whether CPU-backend ranks are bound to CPUs of their own ({@code GPUCOMM_CPU_BIND}).
 *
 * <p>The ranks busy-poll shared-memory flags: two that share a core, or move between cores, wait
 * for each other a scheduler time slice at a time. Binding each to its own CPU, as MPI launchers do
 * by default, keeps them apart.
 */
public enum CpuBindMode {
  /** One CPU per rank, when the CPUs the process may use are enough for every rank. */
  CORE("core"),
  /** No binding: the scheduler places the ranks. */
  NONE("none");

  private final String wireName;

  CpuBindMode(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  /** The mode {@code GPUCOMM_CPU_BIND} asks for; {@link #CORE} when unset. */
  public static CpuBindMode fromEnv(Map<String, String> env) {
    String value = env.get(EnvVars.CPU_BIND);
    if (value == null || value.isBlank()) {
      return CORE;
    }
    for (CpuBindMode mode : values()) {
      if (mode.wireName.equals(value.strip())) {
        return mode;
      }
    }
    throw new UsageException(
        EnvVars.CPU_BIND + ": unknown value '" + value + "' (expected core, none)");
  }
}
