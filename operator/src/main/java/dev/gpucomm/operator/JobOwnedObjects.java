package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.HashMap;

/** Metadata shared by every object the operator creates for a job (owner refs come from JOSDK). */
final class JobOwnedObjects {
  private JobOwnedObjects() {}

  static ObjectMeta metadata(CommJob job, String name) {
    return new ObjectMetaBuilder()
        .withName(name)
        .withNamespace(job.getMetadata().getNamespace())
        .withLabels(new HashMap<>(JobNames.of(job).labels()))
        .withAnnotations(new HashMap<>())
        .build();
  }
}
