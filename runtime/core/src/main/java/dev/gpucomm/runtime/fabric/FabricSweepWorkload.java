package dev.gpucomm.runtime.fabric;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.FabricSpec;
import dev.gpucomm.api.v1alpha1.report.FabricReport;
import dev.gpucomm.api.v1alpha1.report.NodeMatrix;
import dev.gpucomm.api.v1alpha1.report.PodMatrix;
import dev.gpucomm.api.v1alpha1.report.RankIdentity;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.launch.EnvVars;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import dev.gpucomm.runtime.rendezvous.RendezvousAddress;
import dev.gpucomm.runtime.report.FabricMarkdown;
import dev.gpucomm.runtime.report.ReportFiles;
import dev.gpucomm.runtime.workload.RankContext;
import dev.gpucomm.runtime.workload.RankWorkload;
import dev.gpucomm.runtime.workload.WorkloadResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;

/**
 * {@code spec.workload.kind: fabric}: the GPU-pair matrix inside each pod, then the pods against
 * each other in every round of a round-robin tournament (all pairs, each measured alone on its link
 * while the other pairs of its round run on theirs), reported by rank 0 with the verdict on which
 * node, link or GPU pair is slow.
 *
 * <p>All N − 1 rounds run, not a sample: telling a slow node (slow with every partner) from a slow
 * link (one pair) needs each node seen with several partners, and the full matrix is what a reader
 * checks the verdict against. Each round takes the time of its slowest pair, so the sweep grows
 * linearly with the number of pods.
 */
public final class FabricSweepWorkload implements RankWorkload {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Override
  public WorkloadResult run(RankContext context) {
    FabricSpec spec =
        Objects.requireNonNullElseGet(
            context.job().job().getSpec().getWorkload().getFabric(), FabricSpec::new);
    long bytes = Objects.requireNonNullElse(spec.getBytes(), CommJobDefaults.FABRIC_BYTES);
    int iterations =
        Objects.requireNonNullElse(spec.getIterations(), CommJobDefaults.FABRIC_ITERATIONS);
    double slowFraction =
        Objects.requireNonNullElse(spec.getSlowFraction(), CommJobDefaults.FABRIC_SLOW_FRACTION);
    RankTopology topology = context.topology();
    KeyValueStore store = context.store();
    Duration timeout = context.rendezvousTimeout();
    String startedAt = Instant.now().toString();

    List<RankIdentity> identities =
        RankIdentities.gather(
            store,
            "fabric/identity",
            RankIdentities.local(
                context.rank(), context.device(), context.communicator(), System.getenv()),
            topology.worldSize(),
            timeout);

    if (topology.localWorldSize() > 1) {
      try (PeerCopyProbe probe =
          new PeerCopyProbe(context.device(), store, topology, bytes, timeout)) {
        publish(store, "fabric/gpu-row/" + topology.rank(), probe.measure(iterations));
      }
    }
    long podStart = System.nanoTime();
    int rounds = 0;
    if (topology.nodeCount() > 1 && topology.localRank() == 0) {
      rounds = podRounds(topology, store, bytes, iterations, timeout);
    }
    double podSeconds = (System.nanoTime() - podStart) / 1e9;
    if (!context.isRankZero()) {
      return WorkloadResult.none();
    }
    List<NodeMatrix> nodes = new ArrayList<>();
    if (topology.localWorldSize() > 1) {
      for (int pod = 0; pod < topology.nodeCount(); pod++) {
        nodes.add(nodeMatrix(store, topology, identities, pod, timeout));
      }
    }
    PodMatrix pods =
        topology.nodeCount() > 1
            ? podMatrix(store, topology, identities, rounds, podSeconds, timeout)
            : null;
    FabricReport report =
        new FabricReport(
            FabricReport.SCHEMA_VERSION,
            context.job().name(),
            topology.worldSize(),
            topology.localWorldSize(),
            context.device().kind().wireName(),
            context.device().name(),
            bytes,
            iterations,
            slowFraction,
            startedAt,
            identities,
            nodes,
            pods);
    return new WorkloadResult(
        FabricMarkdown.summary(report), new LinkedHashMap<>(ReportFiles.render(report)));
  }

  /** This pod's part of every round; returns the number of rounds. */
  private static int podRounds(
      RankTopology topology, KeyValueStore store, long bytes, int iterations, Duration timeout) {
    int pods = topology.nodeCount();
    int me = topology.nodeIndex();
    RoundRobin schedule = new RoundRobin(pods);
    double[] towards = new double[pods];
    Arrays.fill(towards, Double.NaN);
    RendezvousAddress rendezvous =
        RendezvousAddress.parse(System.getenv(EnvVars.RENDEZVOUS), EnvVars.RENDEZVOUS);
    try (PodPairProbe probe =
        new PodPairProbe(new InetSocketAddress(rendezvous.host(), rendezvous.port()))) {
      store.set("fabric/pod-address/" + me, probe.address().getBytes(StandardCharsets.UTF_8));
      for (int round = 0; round < schedule.rounds(); round++) {
        store.barrier("fabric/round-" + round, pods, timeout);
        int partner = schedule.partner(round, me);
        if (partner < 0) {
          continue;
        }
        if (me < partner) {
          String address =
              new String(
                  store.get("fabric/pod-address/" + partner, timeout), StandardCharsets.UTF_8);
          towards[partner] = probe.measureAsClient(address, bytes, iterations, timeout);
        } else {
          towards[partner] = probe.measureAsServer(bytes, iterations, timeout);
        }
      }
    }
    List<Double> row = new ArrayList<>();
    for (double value : towards) {
      row.add(Double.isNaN(value) ? null : value);
    }
    publish(store, "fabric/pod-row/" + me, row);
    return schedule.rounds();
  }

  private static NodeMatrix nodeMatrix(
      KeyValueStore store,
      RankTopology topology,
      List<RankIdentity> identities,
      int pod,
      Duration timeout) {
    int local = topology.localWorldSize();
    List<Integer> ranks = new ArrayList<>();
    List<List<Double>> oneWay = new ArrayList<>();
    List<List<Double>> bidirectional = new ArrayList<>();
    List<List<Double>> latency = new ArrayList<>();
    List<Double> localCopy = new ArrayList<>();
    for (int gpu = 0; gpu < local; gpu++) {
      int rank = pod * local + gpu;
      GpuPairRow row = read(store, "fabric/gpu-row/" + rank, GpuPairRow.class, timeout);
      ranks.add(rank);
      oneWay.add(row.oneWayGBps());
      bidirectional.add(row.bidirectionalGBps());
      latency.add(row.latencyMicros());
      localCopy.add(row.localCopyGBps());
    }
    return new NodeMatrix(
        pod, identities.get(pod * local).where(), ranks, oneWay, bidirectional, latency, localCopy);
  }

  private static PodMatrix podMatrix(
      KeyValueStore store,
      RankTopology topology,
      List<RankIdentity> identities,
      int rounds,
      double seconds,
      Duration timeout) {
    List<String> nodes = new ArrayList<>();
    List<List<Double>> matrix = new ArrayList<>();
    for (int pod = 0; pod < topology.nodeCount(); pod++) {
      nodes.add(identities.get(pod * topology.localWorldSize()).where());
      matrix.add(readRow(store, "fabric/pod-row/" + pod, timeout));
    }
    return new PodMatrix(nodes, matrix, rounds, seconds);
  }

  private static void publish(KeyValueStore store, String key, Object value) {
    try {
      store.set(key, JSON.writeValueAsBytes(value));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static <T> T read(KeyValueStore store, String key, Class<T> type, Duration timeout) {
    try {
      return JSON.readValue(store.get(key, timeout), type);
    } catch (IOException e) {
      throw new UncheckedIOException("unreadable fabric figures under " + key, e);
    }
  }

  private static List<Double> readRow(KeyValueStore store, String key, Duration timeout) {
    try {
      return Arrays.asList(JSON.readValue(store.get(key, timeout), Double[].class));
    } catch (IOException e) {
      throw new UncheckedIOException("unreadable fabric figures under " + key, e);
    }
  }
}
