package dev.gpucomm.operator;

import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;

/**
 * Leader election through a Lease, so that several operator replicas can run and one reconciles
 * (active in the prod profile; {@code gpucomm.operator.leader-election.enabled=false} turns it
 * off).
 */
public class LeaderElectionProducer {

  @Produces
  @Dependent
  LeaderElectionConfiguration leaderElection(OperatorConfig config) {
    if (!config.leaderElection().enabled()) {
      return null;
    }
    return new LeaderElectionConfiguration(
        config.leaderElection().leaseName(), config.leaderElection().leaseNamespace().orElse(null));
  }
}
