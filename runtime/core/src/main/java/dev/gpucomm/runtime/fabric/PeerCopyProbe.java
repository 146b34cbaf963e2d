package dev.gpucomm.runtime.fabric;

import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.IpcHandle;
import dev.gpucomm.runtime.device.ShareableBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The GPU-pair matrix of one node, measured over peer memory as nvbandwidth and
 * p2pBandwidthLatencyTest do: each GPU copies into a peer's mapped buffer (the copy engines on
 * CUDA, memcpy between shared-memory files on the CPU backend) while the node's other GPUs wait, so
 * that one pair is timed at a time.
 */
public final class PeerCopyProbe implements AutoCloseable {
  /** A small copy: what the latency column times. */
  static final long LATENCY_BYTES = 16;

  private static final int LATENCY_ITERATIONS = 50;

  private final Device device;
  private final KeyValueStore store;
  private final RankTopology topology;
  private final Duration timeout;
  private final String namespace;
  private final long bytes;
  private final ShareableBuffer own;
  private final DeviceBuffer scratch;
  private final DeviceBuffer[] peers;
  private final Stream stream;
  private final Event start;
  private final Event end;
  private int step;

  /** Allocates and exchanges the buffers; every local rank of the pod constructs one. */
  public PeerCopyProbe(
      Device device, KeyValueStore store, RankTopology topology, long bytes, Duration timeout) {
    this.device = device;
    this.store = store;
    this.topology = topology;
    this.timeout = timeout;
    this.bytes = bytes;
    this.namespace = "fabric/node-" + topology.nodeIndex() + "/";
    this.own = device.allocateShareable(bytes);
    this.scratch = device.allocate(bytes);
    this.stream = device.defaultStream();
    this.start = device.createEvent();
    this.end = device.createEvent();
    int local = topology.localWorldSize();
    this.peers = new DeviceBuffer[local];
    store.set(
        namespace + "buffer-" + topology.localRank(),
        own.handle().encode().getBytes(StandardCharsets.UTF_8));
    for (int peer = 0; peer < local; peer++) {
      if (peer != topology.localRank()) {
        byte[] handle = store.get(namespace + "buffer-" + peer, timeout);
        peers[peer] = device.openPeer(IpcHandle.decode(new String(handle, StandardCharsets.UTF_8)));
      }
    }
    device.fill(scratch, 0, bytes, (byte) 1, stream);
    stream.synchronize();
    barrier();
  }

  /** Runs every step of the node's matrix; returns this GPU's row. */
  public GpuPairRow measure(int iterations) {
    int local = topology.localWorldSize();
    int me = topology.localRank();
    double localCopy = 0;
    for (int gpu = 0; gpu < local; gpu++) {
      barrier();
      if (gpu == me) {
        localCopy = gbps(bytes, timeCopies(scratch, own, bytes, iterations));
      }
    }
    Double[] oneWay = new Double[local];
    Double[] bidirectional = new Double[local];
    Double[] latency = new Double[local];
    for (int from = 0; from < local; from++) {
      for (int to = 0; to < local; to++) {
        if (from == to) {
          continue;
        }
        barrier();
        if (from == me) {
          oneWay[to] = gbps(bytes, timeCopies(scratch, peers[to], bytes, iterations));
        }
      }
    }
    for (int a = 0; a < local; a++) {
      for (int b = a + 1; b < local; b++) {
        barrier();
        if (a == me || b == me) {
          int partner = a == me ? b : a;
          bidirectional[partner] =
              gbps(bytes, timeCopies(scratch, peers[partner], bytes, iterations));
        }
      }
    }
    for (int from = 0; from < local; from++) {
      for (int to = 0; to < local; to++) {
        if (from == to) {
          continue;
        }
        barrier();
        if (from == me) {
          latency[to] = 1e6 * timeCopies(scratch, peers[to], LATENCY_BYTES, LATENCY_ITERATIONS);
        }
      }
    }
    barrier();
    return new GpuPairRow(
        topology.rank(),
        Arrays.asList(oneWay),
        Arrays.asList(bidirectional),
        Arrays.asList(latency),
        localCopy);
  }

  /** Seconds per copy: one untimed copy, then {@code count} copies between two events. */
  private double timeCopies(DeviceBuffer src, DeviceBuffer dst, long size, int count) {
    device.copy(dst, 0, src, 0, size, stream);
    start.record(stream);
    for (int i = 0; i < count; i++) {
      device.copy(dst, 0, src, 0, size, stream);
    }
    end.record(stream);
    end.synchronize();
    return end.elapsedMillisSince(start) / 1e3 / count;
  }

  private static double gbps(long size, double seconds) {
    return size / seconds / 1e9;
  }

  private void barrier() {
    store.barrier(namespace + "step-" + step++, topology.localWorldSize(), timeout);
  }

  @Override
  public void close() {
    List<AutoCloseable> owned = new ArrayList<>();
    owned.add(end);
    owned.add(start);
    for (DeviceBuffer peer : peers) {
      if (peer != null) {
        owned.add(peer);
      }
    }
    owned.add(scratch);
    owned.add(own);
    for (AutoCloseable resource : owned) {
      try {
        resource.close();
      } catch (Exception e) {
        // keep closing the rest; the device reports what leaks when it closes
      }
    }
  }
}
