package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Measures the packaged operator, run as its own process against a mock API server: reconcile
 * latency (CommJob created until all its pods exist, one job at a time) and memory with 1000
 * CommJobs. Opt-in ({@code -Dgpucomm.bench=true}); writes bench/results/operator-scale.md.
 */
@EnabledIfSystemProperty(named = "gpucomm.bench", matches = "true")
class OperatorScaleIT {
  static final String COMMAND =
      "./mvnw -pl api,operator verify -Dgpucomm.bench=true -Dit.test=OperatorScaleIT";
  static final int LATENCY_JOBS = 50;
  static final int TOTAL_JOBS = 1000;
  static final int PODS_PER_JOB = 2;

  /** JVM options of the operator image (see quarkus.jib.jvm-additional-arguments). */
  static final List<String> JVM_OPTIONS = OperatorJvm.OPTIONS;

  /** With -Dgpucomm.bench.nmt=true, the JVM's native memory summary goes to the log. */
  static final boolean NATIVE_MEMORY_TRACKING = Boolean.getBoolean("gpucomm.bench.nmt");

  private static final Path LOG = Path.of("target", "operator-scale-it.log");

  @Test
  void reconcileLatencyAndMemoryWithAThousandJobs() throws Exception {
    try (StandaloneApiServer apiServer = StandaloneApiServer.start();
        OperatorProcess operator =
            OperatorProcess.start(apiServer.url(), LOG, jvmOptions(), Map.of())) {
      TestCluster cluster = new TestCluster(apiServer.client);
      Map<String, CountDownLatch> podsPending = new ConcurrentHashMap<>();
      SharedIndexInformer<Pod> podWatch =
          apiServer
              .client
              .pods()
              .inNamespace(cluster.namespace)
              .withLabel(CommJob.JOB_LABEL)
              .inform(
                  new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(Pod pod) {
                      CountDownLatch latch =
                          podsPending.get(pod.getMetadata().getLabels().get(CommJob.JOB_LABEL));
                      if (latch != null) {
                        latch.countDown();
                      }
                    }

                    @Override
                    public void onUpdate(Pod before, Pod after) {}

                    @Override
                    public void onDelete(Pod pod, boolean unknown) {}
                  });

      List<Double> latenciesMillis = new ArrayList<>();
      for (int i = 0; i < LATENCY_JOBS; i++) {
        String name = "latency-" + i;
        CountDownLatch allPods = new CountDownLatch(PODS_PER_JOB);
        podsPending.put(name, allPods);
        long start = System.nanoTime();
        cluster.apply(job(name));
        assertThat(allPods.await(60, TimeUnit.SECONDS)).as("pods of %s", name).isTrue();
        latenciesMillis.add((System.nanoTime() - start) / 1e6);
      }
      podWatch.close();

      long fillStart = System.nanoTime();
      for (int i = LATENCY_JOBS; i < TOTAL_JOBS; i++) {
        cluster.apply(job("scale-" + i));
      }
      await()
          .atMost(Duration.ofMinutes(15))
          .pollInterval(Duration.ofSeconds(2))
          .until(
              () ->
                  apiServer.client.resources(CommJob.class).list().getItems().stream()
                          .filter(
                              j -> j.getStatus() != null && j.getStatus().getStartTime() != null)
                          .count()
                      == TOTAL_JOBS);
      double fillSeconds = (System.nanoTime() - fillStart) / 1e9;
      int pods = apiServer.client.pods().withLabel(CommJob.JOB_LABEL).list().getItems().size();
      assertThat(pods).isEqualTo(TOTAL_JOBS * PODS_PER_JOB);

      long rssBefore = operator.residentBytes();
      JvmHeap heap = JvmHeap.afterFullGc(operator.pid());
      long rssAfterGc = operator.residentBytes();
      if (NATIVE_MEMORY_TRACKING) {
        Files.writeString(
            LOG,
            JvmHeap.jcmd(operator.pid(), "VM.native_memory", "summary"),
            StandardOpenOption.APPEND);
      }

      Collections.sort(latenciesMillis);
      write(latenciesMillis, fillSeconds, pods, rssBefore, rssAfterGc, heap);
    }
  }

  private static List<String> jvmOptions() {
    List<String> options = new ArrayList<>(JVM_OPTIONS);
    if (NATIVE_MEMORY_TRACKING) {
      options.add("-XX:NativeMemoryTracking=summary");
    }
    return options;
  }

  private static String job(String name) {
    return """
        metadata: {name: %s}
        spec:
          worldSize: %d
          device: cpu
          workload:
            kind: benchmark
            benchmark: {tokens: [32, 64, 128, 256, 1024, 2048, 4096], algorithms: [auto, ring]}
        """
        .formatted(name, PODS_PER_JOB);
  }

  private static void write(
      List<Double> sortedMillis,
      double fillSeconds,
      int pods,
      long rssBefore,
      long rssAfterGc,
      JvmHeap heap)
      throws IOException {
    double p50 = percentile(sortedMillis, 50);
    double p90 = percentile(sortedMillis, 90);
    double max = sortedMillis.get(sortedMillis.size() - 1);
    double rssMb = rssBefore / 1048576.0;
    String report =
        String.format(
            Locale.ROOT,
            """
            # Operator scale: reconcile latency and memory

            Measured %s by `OperatorScaleIT` (operator module), with:

            ```
            %s
            ```

            The packaged operator (`operator/target/quarkus-app/quarkus-run.jar`, prod profile,
            leader election off) runs as its own process against Fabric8's mock API server (CRUD
            mode, in the test JVM, plain HTTP on localhost). JVM options of the operator process:
            `%s`: the operator image's, and `%s` standing for the chart's 512Mi memory limit
            (outside a container the JVM would size its heap by the host's memory). Host: %d
            CPUs, load average %.1f at the end of the run (the machine was shared with other
            builds). Every CommJob has worldSize %d (ranksPerPod 1, device cpu): %d pods, 2
            ConfigMaps, a Service, a ServiceAccount, a Role and a RoleBinding each.

            ## Reconcile latency (CommJob created -> all its pods exist)

            %d jobs created one at a time; the time from the create request until the test's own
            pod watch has seen every pod of the job. The first jobs meet a cold JVM (the max).

            | p50 | p90 | max | goal |
            |---|---|---|---|
            | %.0f ms | %.0f ms | %.0f ms | p50 <= 200 ms: %s |

            ## Memory with %d CommJobs

            %d CommJobs (%d pods, %d objects the operator created and caches) reconciled to
            status Pending in %.0f s.

            | RSS | RSS after a full GC | heap used after a full GC | heap committed | goal |
            |---|---|---|---|---|
            | %.0f MB | %.0f MB | %.0f MB | %.0f MB | RSS <= 250 MB: %s |
            """,
            Instant.now().truncatedTo(ChronoUnit.SECONDS),
            COMMAND,
            String.join(" ", OperatorJvm.IMAGE_OPTIONS),
            OperatorJvm.CHART_MEMORY_LIMIT,
            Runtime.getRuntime().availableProcessors(),
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
            PODS_PER_JOB,
            PODS_PER_JOB,
            sortedMillis.size(),
            p50,
            p90,
            max,
            p50 <= 200 ? "met" : "NOT met",
            TOTAL_JOBS,
            TOTAL_JOBS,
            pods,
            TOTAL_JOBS * (PODS_PER_JOB + 6),
            fillSeconds,
            rssMb,
            rssAfterGc / 1048576.0,
            heap.usedBytes() / 1048576.0,
            heap.committedBytes() / 1048576.0,
            rssMb <= 250 ? "met" : "NOT met");
    Path results = Path.of(System.getProperty("gpucomm.repo", ".."), "bench", "results");
    Files.createDirectories(results);
    Files.writeString(results.resolve("operator-scale.md"), report);
  }

  static double percentile(List<Double> sorted, int percent) {
    int index = (int) Math.ceil(percent / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, index));
  }
}
