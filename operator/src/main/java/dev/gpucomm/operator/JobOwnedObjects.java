package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.util.HashMap;

/** Metadata shared by every object the operator creates for a job. */
final class JobOwnedObjects {
  private JobOwnedObjects() {}

  static ObjectMeta metadata(CommJob job, String name) {
    return new ObjectMetaBuilder()
        .withName(name)
        .withNamespace(job.getMetadata().getNamespace())
        .withLabels(JobNames.labelsOf(job))
        .withAnnotations(new HashMap<>())
        .withOwnerReferences(controllerReference(job))
        .build();
  }

  /**
   * The job as controller of the object: deleting the job deletes it, and {@code kubectl describe}
   * shows "Controlled By". (JOSDK would add a plain owner reference; one with the job's uid is
   * already there, so it adds none.)
   */
  static OwnerReference controllerReference(CommJob job) {
    return new OwnerReferenceBuilder()
        .withApiVersion(CommJob.API_VERSION)
        .withKind(job.getKind())
        .withName(job.getMetadata().getName())
        .withUid(job.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }
}
