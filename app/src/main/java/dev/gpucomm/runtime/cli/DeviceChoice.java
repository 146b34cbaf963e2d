package dev.gpucomm.runtime.cli;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.collective.DeviceBackends;
import dev.gpucomm.runtime.report.HumanUnits;
import dev.gpucomm.runtime.spec.LoadedJob;
import java.io.PrintStream;
import java.util.Optional;

/**
 * Picks the device of a local run: {@code --device} wins, else the job's spec.device when its
 * author wrote one, else cuda when this host has GPUs, else cpu (with a note saying why).
 */
final class DeviceChoice {
  private final DeviceBackends backends;
  private final PrintStream notes;

  DeviceChoice(DeviceBackends backends, PrintStream notes) {
    this.backends = backends;
    this.notes = notes;
  }

  DeviceKind resolve(String command, Optional<DeviceKind> flag, LoadedJob job) {
    DeviceKind kind;
    String origin;
    if (flag.isPresent()) {
      kind = flag.get();
      origin = "gpucomm " + command + ": --device " + kind;
    } else if (job.deviceExplicit()) {
      kind = job.job().getSpec().getDevice();
      origin = job.source() + ": spec.device: " + kind;
    } else {
      DeviceBackends.Probe cuda = backends.probe(DeviceKind.CUDA);
      if (cuda.usable()) {
        kind = DeviceKind.CUDA;
        origin = "gpucomm " + command + ": cuda (found " + cuda.deviceCount() + " GPUs)";
      } else {
        notes.println(
            "gpucomm "
                + command
                + ": no GPU here ("
                + cuda.reason()
                + "); running on the CPU backend (pass --device to choose)");
        kind = DeviceKind.CPU;
        origin = "gpucomm " + command + ": cpu";
      }
    }
    DeviceBackends.Probe probe = backends.probe(kind);
    if (!probe.usable()) {
      throw new UsageException(
          origin
              + " is not usable here: "
              + probe.reason()
              + (kind == DeviceKind.CUDA ? " (--device cpu runs on the CPU backend)" : ""));
    }
    int worldSize = job.job().getSpec().getWorldSize();
    if (kind == DeviceKind.CUDA && worldSize > probe.deviceCount()) {
      throw new UsageException(
          job.source()
              + ": spec.worldSize: "
              + HumanUnits.count(worldSize, "rank")
              + " need "
              + HumanUnits.count(worldSize, "GPU")
              + " on this host, which has "
              + probe.deviceCount()
              + " (local runs put every rank here)");
    }
    return kind;
  }
}
