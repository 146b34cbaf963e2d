package dev.gpucomm.e2e.cluster;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.e2e.E2eSettings;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives scenarios a {@link Cluster}: one per test run, mock or real by {@link E2eSettings}, closed
 * when the run ends. After each scenario it saves the artifacts of a failed one and deletes the
 * scenario's CommJobs, waiting until nothing of them is left.
 */
public final class ClusterExtension implements ParameterResolver, AfterEachCallback {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterExtension.class);
  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(ClusterExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == Cluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return cluster(context);
  }

  private static Cluster cluster(ExtensionContext context) {
    return context
        .getRoot()
        .getStore(STORE)
        .getOrComputeIfAbsent(
            Running.class, key -> new Running(start(E2eSettings.fromSystem())), Running.class)
        .cluster();
  }

  private static Cluster start(E2eSettings settings) {
    return settings.real() ? RealCluster.start(settings) : MockCluster.start(settings);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    Running running = context.getRoot().getStore(STORE).get(Running.class, Running.class);
    if (running == null) {
      return;
    }
    Cluster cluster = running.cluster();
    if (context.getExecutionException().isPresent()) {
      Path directory =
          E2eSettings.fromSystem()
              .artifactsDir()
              .resolve(context.getRequiredTestClass().getSimpleName())
              .resolve(context.getRequiredTestMethod().getName());
      LOG.info("scenario failed: saving artifacts in {}", directory);
      cluster.saveArtifacts(context.getDisplayName(), directory);
    }
    for (CommJob job :
        cluster
            .client()
            .resources(CommJob.class)
            .inNamespace(cluster.namespace())
            .list()
            .getItems()) {
      cluster.client().resource(job).delete();
      cluster.awaitNothingLeftOf(job.getMetadata().getName(), Duration.ofSeconds(60));
    }
  }

  /** The run's cluster, closed by JUnit when the run ends. */
  private record Running(Cluster cluster) implements ExtensionContext.Store.CloseableResource {
    @Override
    public void close() {
      cluster.close();
    }
  }
}
