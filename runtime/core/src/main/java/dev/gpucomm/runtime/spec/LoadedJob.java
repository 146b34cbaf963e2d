package dev.gpucomm.runtime.spec;

import dev.gpucomm.api.v1alpha1.CommJob;

/**
 * A parsed, defaulted and validated CommJob, with where it came from and whether its author chose
 * the device (a local run may pick one itself only when they did not).
 */
public record LoadedJob(CommJob job, String source, boolean deviceExplicit) {
  public String name() {
    return job.getMetadata().getName();
  }
}
