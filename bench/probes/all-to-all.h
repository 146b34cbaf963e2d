// What the all-to-all probes share: every GPU of the host writes a part to (or reads a part from)
// each of its n - 1 peers at once, the traffic of a two-shot all-reduce's scatter and gather.
// GPU g's buffers hold n - 1 parts: its part p goes to peer_of(g, p), and what sender s sends to g
// lands at slot(s, g). Include after probe.h.
#pragma once

constexpr int MAX_GPUS = 8;

struct Destinations {
  uint4* to[MAX_GPUS - 1];
};

// The p-th peer of GPU g.
inline int peer_of(int g, int p, int n) { return (g + 1 + p) % n; }

// Which of GPU g's peers `peer` is: peer_of(g, index_of(g, peer, n), n) == peer.
inline int index_of(int g, int peer, int n) { return (peer - g - 1 + n) % n; }

// Where sender `from` writes in GPU `to`'s receive buffer: one part-sized slot per sender.
inline long long slot(int from, int to, long long part) {
  return (from < to ? from : from - 1) * part;
}

// Block b writes to peer b % peers; the blocks of one peer share its part grid-stride, 4 loads in
// flight per thread. Part p starts at src + p * partStride and is `vectors` long.
__global__ void push_to_all(const uint4* __restrict__ src, Destinations dst, int peers,
                            long long vectors, long long partStride) {
  const int peer = blockIdx.x % peers;
  const long long stride = static_cast<long long>(gridDim.x / peers) * blockDim.x;
  const uint4* from = src + peer * partStride;
  uint4* to = dst.to[peer];
  long long i = static_cast<long long>(blockIdx.x / peers) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < vectors; i += 4 * stride) {
    uint4 x[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) x[u] = __ldg(from + i + u * stride);
#pragma unroll
    for (int u = 0; u < 4; ++u) to[i + u * stride] = x[u];
  }
  for (; i < vectors; i += stride) to[i] = from[i];
}

// Every block goes through the peers in turn, `rounds` times over slices of each part: round r
// sends slice r of part 0, then of part 1, ... With peer_of(g, p) = g + 1 + p, while the GPUs keep
// pace every GPU sends to one peer and receives from one (a permutation of the GPUs), where
// push_to_all has every GPU send to and receive from all of its peers at once.
__global__ void push_rotating(const uint4* __restrict__ src, Destinations dst, int peers,
                              long long vectors, long long partStride, int rounds) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long slice = (vectors + rounds - 1) / rounds;
  for (int r = 0; r < rounds; ++r) {
    const long long begin = r * slice;
    const long long end = begin + slice < vectors ? begin + slice : vectors;
    for (int peer = 0; peer < peers; ++peer) {
      const uint4* from = src + peer * partStride;
      uint4* to = dst.to[peer];
      long long i = begin + static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
      for (; i + 3 * stride < end; i += 4 * stride) {
        uint4 x[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) x[u] = __ldg(from + i + u * stride);
#pragma unroll
        for (int u = 0; u < 4; ++u) to[i + u * stride] = x[u];
      }
      for (; i < end; i += stride) to[i] = from[i];
    }
  }
}

// Block b reads part p = b % peers from src.to[p] (remote loads) into dst + p * partStride: a
// two-shot gather that pulls.
__global__ void pull_from_all(Destinations src, uint4* dst, int peers, long long vectors,
                              long long partStride) {
  const int peer = blockIdx.x % peers;
  const long long stride = static_cast<long long>(gridDim.x / peers) * blockDim.x;
  const uint4* from = src.to[peer];
  uint4* to = dst + peer * partStride;
  long long i = static_cast<long long>(blockIdx.x / peers) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < vectors; i += 4 * stride) {
    uint4 x[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) x[u] = __ldcg(from + i + u * stride);
#pragma unroll
    for (int u = 0; u < 4; ++u) to[i + u * stride] = x[u];
  }
  for (; i < vectors; i += stride) to[i] = __ldcg(from + i);
}

// Zeroes every GPU's receive buffers (`dst`, `pulled`) before a measurement.
template <typename Gpu>
void clear_receive_buffers(std::vector<Gpu>& gpus, long long bytes) {
  for (auto& gpu : gpus) {
    CHECK(cudaSetDevice(gpu.device));
    CHECK(cudaMemset(gpu.dst, 0, bytes));
    CHECK(cudaMemset(gpu.pulled, 0, bytes));
    CHECK(cudaDeviceSynchronize());
  }
}
