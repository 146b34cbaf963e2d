package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import jakarta.inject.Inject;
import java.util.Map;

/**
 * Headless Service {@code <job>}: gives pod {@code <job>-<i>} the DNS name {@code
 * <job>-<i>.<job>.<namespace>.svc}. It publishes not-ready addresses so that ranks find rank 0's
 * rendezvous store as soon as its pod has an IP, without waiting on readiness.
 */
@KubernetesDependent(informer = @Informer(labelSelector = CommJob.JOB_LABEL))
public class CommJobServiceDependentResource
    extends CRUDKubernetesDependentResource<Service, CommJob> {
  @Inject OperatorConfig config;

  public CommJobServiceDependentResource() {
    super(Service.class);
  }

  @Override
  protected Service desired(CommJob job, Context<CommJob> context) {
    JobNames names = JobNames.of(job);
    return new ServiceBuilder()
        .withMetadata(JobOwnedObjects.metadata(job, names.service()))
        .withNewSpec()
        .withClusterIP("None")
        .withPublishNotReadyAddresses(true)
        .withSelector(Map.of(CommJob.JOB_LABEL, names.job()))
        .addNewPort()
        .withName(PodTemplateFactory.RENDEZVOUS_PORT_NAME)
        .withPort(config.rendezvousPort())
        .withProtocol("TCP")
        .endPort()
        .endSpec()
        .build();
  }
}
