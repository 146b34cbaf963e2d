package dev.gpucomm.runtime.workload;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.DeviceKind;

/**
 * A host-IR program workload ({@code spec.workload.kind: program}). Implemented by the host-IR
 * module and found through {@link java.util.ServiceLoader}, so the runtime core does not depend on
 * it: register the implementation in {@code
 * META-INF/services/dev.gpucomm.runtime.workload.ProgramWorkload}.
 */
public interface ProgramWorkload extends RankWorkload {
  /**
   * The memory one rank of {@code job} holds at its largest on {@code device}, from the programs it
   * will run: the launcher refuses a shape that cannot fit before any rank starts.
   *
   * @throws dev.gpucomm.runtime.UsageException when the program spec cannot run, naming the field
   */
  RankMemory memory(CommJob job, DeviceKind device);
}
