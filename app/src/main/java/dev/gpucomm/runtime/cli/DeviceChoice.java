package dev.gpucomm.runtime.cli;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.collective.DeviceBackends;
import dev.gpucomm.runtime.report.HumanUnits;
import dev.gpucomm.runtime.spec.LoadedJob;
import java.io.PrintStream;
import java.util.Optional;
import java.util.function.Function;

/**
 * Picks the device of a local run: {@code --device} wins, else the job's spec.device when its
 * author wrote one, else cuda when this host has a GPU for every rank, else cpu (with a note saying
 * why).
 */
final class DeviceChoice {
  private final Function<DeviceKind, DeviceBackends.Probe> probes;
  private final PrintStream notes;

  DeviceChoice(DeviceBackends backends, PrintStream notes) {
    this(backends::probe, notes);
  }

  /** A choice over these probes of the backends (a test's, say). */
  DeviceChoice(Function<DeviceKind, DeviceBackends.Probe> probes, PrintStream notes) {
    this.probes = probes;
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
      DeviceBackends.Probe cuda = probes.apply(DeviceKind.CUDA);
      int ranks = job.job().getSpec().getWorldSize();
      if (cuda.usable() && cuda.deviceCount() >= ranks) {
        kind = DeviceKind.CUDA;
        origin = "gpucomm " + command + ": cuda (found " + cuda.deviceCount() + " GPUs)";
      } else {
        String why =
            cuda.usable()
                ? HumanUnits.count(ranks, "rank")
                    + " need "
                    + HumanUnits.count(ranks, "GPU")
                    + " and this host has "
                    + cuda.deviceCount()
                : "no GPU here (" + cuda.reason() + ")";
        notes.println(
            "gpucomm "
                + command
                + ": "
                + why
                + "; running on the CPU backend (pass --device to choose)");
        kind = DeviceKind.CPU;
        origin = "gpucomm " + command + ": cpu";
      }
    }
    DeviceBackends.Probe probe = probes.apply(kind);
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
              + ": "
              + job.field("spec.worldSize")
              + ": "
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
