// NVLink write bandwidth between two GPUs, by the three ways a kernel or a stream can move
// bytes into a peer's memory:
//
//   sm    every thread loads 16-byte vectors of the local buffer and stores them to the peer
//         (what gpucomm's one-shot and two-shot push loops do);
//   tma   one thread per producer warp moves the buffer through shared memory with bulk copies
//         (cp.async.bulk global -> shared, then shared -> peer global), several stages in flight;
//   ce    cudaMemcpyPeerAsync on the copy engines.
//
// Each is timed one way (GPU 0 -> 1) and both ways at once (each GPU pushes to the other; the
// two streams are released together by a flag in host memory). A sample is `--calls` transfers
// back to back between CUDA events; the figure is the median of `--samples` samples after
// warm-up, as GB/s (10^9 bytes) per direction. Every destination is compared with its source
// after the last sample.
//
//   nvcc -O3 -arch=sm_90 -cudart static -o nvlink-stores bench/probes/nvlink-stores.cu
//   ./nvlink-stores [--mib 64] [--calls 10] [--samples 30]
//   ./nvlink-stores --mix                 (a share of the bytes on the copy engine, the rest by SM
//                                          stores at the same time)
//   ./nvlink-stores --power-seconds 10 --power-mode ce|sm   (transfers only, both ways, for a
//                                                            power sampler running beside it)
#include <chrono>
#include <string>

#include "probe.h"

// ---------------------------------------------------------------------------------------------
// Kernels.

// Grid-stride 16-byte copies, Unroll loads in flight per thread before the stores.
template <int Unroll>
__global__ void sm_push(const uint4* __restrict__ src, uint4* dst, long long vectors) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (Unroll - 1) * stride < vectors; i += Unroll * stride) {
    uint4 x[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) x[u] = __ldg(src + i + u * stride);
#pragma unroll
    for (int u = 0; u < Unroll; ++u) dst[i + u * stride] = x[u];
  }
  for (; i < vectors; i += stride) dst[i] = src[i];
}

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(uint64_t* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(bar)) : "memory");
}

__device__ __forceinline__ void mbar_expect(uint64_t* bar, uint32_t bytes) {
  asm volatile(
      "{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }" ::"r"(
          smem_addr(bar)),
      "r"(bytes)
      : "memory");
}

__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{ .reg .pred done;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=; }" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}

__device__ __forceinline__ void bulk_load(void* smem, const void* gmem, uint32_t bytes,
                                          uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(smem_addr(smem)),
      "l"(gmem), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}

__device__ __forceinline__ void bulk_store(void* gmem, const void* smem, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(gmem),
               "r"(smem_addr(smem)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// Block b's producer p moves tiles t = (b * producers + p), + producers * grid, ...: loads run
// Stages - 1 tiles ahead of the stores, and a stage is reloaded once its store has read it.
template <int Stages>
__global__ void tma_push(const char* __restrict__ src, char* dst, long long tiles, int tileBytes,
                         int producers) {
  extern __shared__ __align__(128) char smem[];
  __shared__ uint64_t bars[32][Stages];
  const int warp = threadIdx.x / 32;
  if (warp >= producers || threadIdx.x % 32 != 0) return;
  char* stage = smem + static_cast<size_t>(warp) * Stages * tileBytes;
  for (int s = 0; s < Stages; ++s) mbar_init(&bars[warp][s]);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");

  const long long first = static_cast<long long>(blockIdx.x) * producers + warp;
  const long long step = static_cast<long long>(gridDim.x) * producers;
  const long long mine = first < tiles ? (tiles - first + step - 1) / step : 0;
  for (long long i = 0; i < Stages - 1 && i < mine; ++i) {
    const int s = static_cast<int>(i % Stages);
    mbar_expect(&bars[warp][s], tileBytes);
    bulk_load(stage + s * tileBytes, src + (first + i * step) * tileBytes, tileBytes,
              &bars[warp][s]);
  }
  for (long long i = 0; i < mine; ++i) {
    const int s = static_cast<int>(i % Stages);
    mbar_wait(&bars[warp][s], static_cast<uint32_t>((i / Stages) & 1));
    bulk_store(dst + (first + i * step) * tileBytes, stage + s * tileBytes, tileBytes);
    // The stage of tile i - 1 takes tile i + Stages - 1 once tile i - 1's store has read it.
    asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
    const long long next = i + Stages - 1;
    if (next < mine) {
      const int ns = static_cast<int>(next % Stages);
      mbar_expect(&bars[warp][ns], tileBytes);
      bulk_load(stage + ns * tileBytes, src + (first + next * step) * tileBytes, tileBytes,
                &bars[warp][ns]);
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// ---------------------------------------------------------------------------------------------
// Host side.

struct Gpu {
  int device;
  cudaStream_t stream;
  cudaStream_t side;  // the copy-engine share of a mixed transfer
  cudaEvent_t fork, join;
  char* src;
  char* dst;  // written by the other GPU
};

struct Options {
  long long bytes = 64ll << 20;
  int calls = 10;
  int samples = 30;
  double powerSeconds = 0;
  std::string powerMode = "ce";
  bool mixOnly = false;
};

using Enqueue = void (*)(const Gpu& self, const Gpu& peer, long long bytes, const void* cfg);

struct SmConfig {
  int blocks, threads, unroll;
};

struct TmaConfig {
  int blocks, producers, stages, tileBytes;
};

static void enqueue_sm(const Gpu& self, const Gpu& peer, long long bytes, const void* cfg) {
  const SmConfig& c = *static_cast<const SmConfig*>(cfg);
  const long long vectors = bytes / 16;
  auto src = reinterpret_cast<const uint4*>(self.src);
  auto dst = reinterpret_cast<uint4*>(peer.dst);
  if (c.unroll == 1) sm_push<1><<<c.blocks, c.threads, 0, self.stream>>>(src, dst, vectors);
  if (c.unroll == 2) sm_push<2><<<c.blocks, c.threads, 0, self.stream>>>(src, dst, vectors);
  if (c.unroll == 4) sm_push<4><<<c.blocks, c.threads, 0, self.stream>>>(src, dst, vectors);
  if (c.unroll == 8) sm_push<8><<<c.blocks, c.threads, 0, self.stream>>>(src, dst, vectors);
}

template <int Stages>
static void launch_tma(const Gpu& self, const Gpu& peer, long long bytes, const TmaConfig& c) {
  const size_t shared = static_cast<size_t>(c.producers) * Stages * c.tileBytes;
  static bool configured[8] = {};
  if (!configured[self.device]) {
    CHECK(cudaFuncSetAttribute(tma_push<Stages>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               200 * 1024));
    configured[self.device] = true;
  }
  tma_push<Stages><<<c.blocks, c.producers * 32, shared, self.stream>>>(
      self.src, peer.dst, bytes / c.tileBytes, c.tileBytes, c.producers);
}

static void enqueue_tma(const Gpu& self, const Gpu& peer, long long bytes, const void* cfg) {
  const TmaConfig& c = *static_cast<const TmaConfig*>(cfg);
  if (c.stages == 2) launch_tma<2>(self, peer, bytes, c);
  if (c.stages == 3) launch_tma<3>(self, peer, bytes, c);
  if (c.stages == 4) launch_tma<4>(self, peer, bytes, c);
}

static void enqueue_ce(const Gpu& self, const Gpu& peer, long long bytes, const void*) {
  CHECK(cudaMemcpyPeerAsync(peer.dst, peer.device, self.src, self.device, bytes, self.stream));
}

struct MixConfig {
  double copyEngineShare;  // of the bytes, rounded to 1 MiB, moved by the copy engine
  SmConfig sm;
};

// The first part of the buffer on the copy engine (a side stream forked from and joined to the
// main one), the rest by SM stores at the same time.
static void enqueue_mix(const Gpu& self, const Gpu& peer, long long bytes, const void* cfg) {
  const MixConfig& c = *static_cast<const MixConfig*>(cfg);
  const long long ce = static_cast<long long>(bytes * c.copyEngineShare) >> 20 << 20;
  CHECK(cudaEventRecord(self.fork, self.stream));
  CHECK(cudaStreamWaitEvent(self.side, self.fork, 0));
  CHECK(cudaMemcpyPeerAsync(peer.dst, peer.device, self.src, self.device, ce, self.side));
  CHECK(cudaEventRecord(self.join, self.side));
  const long long vectors = (bytes - ce) / 16;
  sm_push<4><<<c.sm.blocks, c.sm.threads, 0, self.stream>>>(
      reinterpret_cast<const uint4*>(self.src + ce), reinterpret_cast<uint4*>(peer.dst + ce),
      vectors);
  CHECK(cudaStreamWaitEvent(self.stream, self.join, 0));
}

// Median GB/s per direction of `calls` back-to-back transfers, on GPU 0 only or on both at once.
static double measure(std::vector<Gpu>& gpus, bool bothWays, Enqueue enqueue, const void* cfg,
                      const Options& o) {
  const std::vector<cudaStream_t> streams{gpus[0].stream, gpus[1].stream};
  const double ms = median_slowest_ms(bothWays ? 2 : 1, streams, o.samples, [&](int g) {
    for (int k = 0; k < o.calls; ++k) enqueue(gpus[g], gpus[1 - g], o.bytes, cfg);
  });
  return static_cast<double>(o.bytes) * o.calls / (ms * 1e-3) / 1e9;
}

static bool destinations_match(std::vector<Gpu>& gpus, long long bytes, bool bothWays) {
  std::vector<char> a(bytes), b(bytes);
  for (int g = 0; g < (bothWays ? 2 : 1); ++g) {
    CHECK(cudaSetDevice(gpus[g].device));
    CHECK(cudaMemcpy(a.data(), gpus[g].src, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaSetDevice(gpus[1 - g].device));
    CHECK(cudaMemcpy(b.data(), gpus[1 - g].dst, bytes, cudaMemcpyDeviceToHost));
    if (memcmp(a.data(), b.data(), bytes) != 0) return false;
  }
  return true;
}

static void clear_destinations(std::vector<Gpu>& gpus, long long bytes) {
  for (auto& gpu : gpus) {
    CHECK(cudaSetDevice(gpu.device));
    CHECK(cudaMemset(gpu.dst, 0, bytes));
    CHECK(cudaDeviceSynchronize());
  }
}

static void report(std::vector<Gpu>& gpus, const char* name, const char* config, Enqueue enqueue,
                   const void* cfg, const Options& o) {
  for (bool both : {false, true}) {
    clear_destinations(gpus, o.bytes);
    const double rate = measure(gpus, both, enqueue, cfg, o);
    const bool ok = destinations_match(gpus, o.bytes, both);
    printf("%-4s %-34s %-9s %7.1f GB/s per direction  %s\n", name, config,
           both ? "both-ways" : "one-way", rate, ok ? "checked" : "MISMATCH");
    fflush(stdout);
    if (!ok) exit(3);
  }
}

static void run_for_power(std::vector<Gpu>& gpus, const Options& o) {
  const SmConfig sm{132, 512, 4};
  const Enqueue enqueue = o.powerMode == "sm" ? enqueue_sm : enqueue_ce;
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(static_cast<long long>(o.powerSeconds * 1000));
  long long transfers = 0;
  const auto begin = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() < until) {
    for (int g = 0; g < 2; ++g) {
      CHECK(cudaSetDevice(gpus[g].device));
      for (int k = 0; k < 20; ++k) enqueue(gpus[g], gpus[1 - g], o.bytes, &sm);
    }
    for (auto& gpu : gpus) {
      CHECK(cudaSetDevice(gpu.device));
      CHECK(cudaStreamSynchronize(gpu.stream));
    }
    transfers += 20;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  printf("power run: %s both ways, %lld transfers of %lld MiB per GPU in %.2f s (%.1f GB/s per "
         "direction)\n",
         o.powerMode.c_str(), transfers, o.bytes >> 20, seconds,
         transfers * o.bytes / seconds / 1e9);
}

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        fprintf(stderr, "nvlink-stores: %s needs a value\n", a.c_str());
        exit(2);
      }
      return argv[++i];
    };
    if (a == "--mib") o.bytes = atoll(value()) << 20;
    else if (a == "--calls") o.calls = atoi(value());
    else if (a == "--samples") o.samples = atoi(value());
    else if (a == "--power-seconds") o.powerSeconds = atof(value());
    else if (a == "--power-mode") o.powerMode = value();
    else if (a == "--mix") o.mixOnly = true;
    else {
      fprintf(stderr, "nvlink-stores: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  if (count < 2) {
    fprintf(stderr, "nvlink-stores: needs two GPUs, found %d\n", count);
    return 2;
  }
  std::vector<Gpu> gpus(2);
  for (int g = 0; g < 2; ++g) {
    gpus[g].device = g;
    CHECK(cudaSetDevice(g));
    CHECK(cudaDeviceEnablePeerAccess(1 - g, 0));
    CHECK(cudaStreamCreateWithFlags(&gpus[g].stream, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&gpus[g].side, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&gpus[g].fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&gpus[g].join, cudaEventDisableTiming));
    CHECK(cudaMalloc(&gpus[g].src, o.bytes));
    CHECK(cudaMalloc(&gpus[g].dst, o.bytes));
    const std::vector<uint32_t> random = random_words(o.bytes, g + 1);
    CHECK(cudaMemcpy(gpus[g].src, random.data(), o.bytes, cudaMemcpyHostToDevice));
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s x 2, %d SMs, %lld MiB per transfer, %d transfers per sample, median of %d\n",
         prop.name, prop.multiProcessorCount, o.bytes >> 20, o.calls, o.samples);
  if (o.powerSeconds > 0) {
    run_for_power(gpus, o);
    return 0;
  }

  const int sms = prop.multiProcessorCount;
  char label[64];
  if (o.mixOnly) {
    report(gpus, "ce", "cudaMemcpyPeerAsync", enqueue_ce, nullptr, o);
    const SmConfig sm{sms, 512, 4};
    report(gpus, "sm", "blocks=132 threads=512 unroll=4", enqueue_sm, &sm, o);
    for (double share : {0.1, 0.2, 0.3, 0.4, 0.5}) {
      const MixConfig c{share, sm};
      snprintf(label, sizeof label, "copy-engine share %.1f", share);
      report(gpus, "mix", label, enqueue_mix, &c, o);
    }
    return 0;
  }
  for (int blocks : {sms, 2 * sms}) {
    for (int threads : {256, 512, 1024}) {
      for (int unroll : {2, 4, 8}) {
        if (blocks * threads > sms * 2048) continue;
        const SmConfig c{blocks, threads, unroll};
        snprintf(label, sizeof label, "blocks=%d threads=%d unroll=%d", blocks, threads, unroll);
        report(gpus, "sm", label, enqueue_sm, &c, o);
      }
    }
  }
  for (int producers : {1, 2, 4}) {
    for (int stages : {2, 3, 4}) {
      for (int tileKiB : {4, 8, 16}) {
        if (producers * stages * tileKiB > 192) continue;
        const TmaConfig c{sms, producers, stages, tileKiB * 1024};
        snprintf(label, sizeof label, "blocks=%d producers=%d stages=%d tile=%dK", sms,
                 producers, stages, tileKiB);
        report(gpus, "tma", label, enqueue_tma, &c, o);
      }
    }
  }
  report(gpus, "ce", "cudaMemcpyPeerAsync", enqueue_ce, nullptr, o);
  return 0;
}
