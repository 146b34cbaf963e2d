// A flag-free, warp-specialized one-shot all-reduce of two GPUs: a prototype before anything goes
// into the runtime. Half of each block's warps push the input into the peer's receive slot with
// plain NVLink stores (no fence, no flag); the other half poll their own slot until the data has
// replaced the sentinel, reduce it with the local input in rank order, and write the sentinel back
// into the slot of the previous call. Three slots rotate, as in gpucomm's small Lamport kernel.
//
// The question it answers: at 64 MiB, how close does a one-shot without flags come to a bare
// copy of the same bytes both ways (the NVLink ceiling for SM stores)?
//
//   nvcc -O3 -arch=sm_90 -cudart static -o lamport-oneshot-ws bench/probes/lamport-oneshot-ws.cu
//   ./lamport-oneshot-ws [--mib 64] [--calls 10] [--samples 30]
#include <string>

#include "probe.h"

constexpr uint32_t SENTINEL = 0x80008000u;  // two bf16 -0.0

__global__ void fill_sentinel(uint32_t* words, long long count) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x)
    words[i] = SENTINEL;
}

__device__ __forceinline__ uint4 ld_volatile_v4(const uint4* p) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

__device__ __forceinline__ void st_volatile_v4(uint4* p, uint4 v) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y),
               "r"(v.z), "r"(v.w)
               : "memory");
}

__device__ __forceinline__ uint4 sanitize(uint4 x) {
  x.x = x.x == SENTINEL ? 0u : x.x;
  x.y = x.y == SENTINEL ? 0u : x.y;
  x.z = x.z == SENTINEL ? 0u : x.z;
  x.w = x.w == SENTINEL ? 0u : x.w;
  return x;
}

__device__ __forceinline__ bool pending(uint4 x) {
  return x.x == SENTINEL || x.y == SENTINEL || x.z == SENTINEL || x.w == SENTINEL;
}

// Warps [0, pushWarps) push, the rest reduce; Rounds vectors per thread in flight.
template <int Rounds>
__global__ void __launch_bounds__(512, 1)
    lamport_ws(const uint4* __restrict__ input, uint4* output, uint4* peerSlots,
               uint4* ownSlots, long long vectors, long long slotVectors, uint32_t epoch,
               int rank, int pushWarps, int sleepNs) {
  const int warp = threadIdx.x / 32;
  const bool pusher = warp < pushWarps;
  const int teamThreads = (pusher ? pushWarps : blockDim.x / 32 - pushWarps) * 32;
  const int t = pusher ? threadIdx.x : threadIdx.x - pushWarps * 32;
  const long long first = static_cast<long long>(blockIdx.x) * teamThreads + t;
  const long long stride = static_cast<long long>(gridDim.x) * teamThreads;
  const int slot = epoch % 3;
  const int previous = (epoch + 2) % 3;
  if (pusher) {
    uint4* dst = peerSlots + slot * slotVectors;
    for (long long v = first; v < vectors; v += Rounds * stride) {
      uint4 x[Rounds];
#pragma unroll
      for (int r = 0; r < Rounds; ++r)
        if (v + r * stride < vectors) x[r] = sanitize(input[v + r * stride]);
#pragma unroll
      for (int r = 0; r < Rounds; ++r)
        if (v + r * stride < vectors) st_volatile_v4(dst + v + r * stride, x[r]);
    }
  } else {
    const uint4* src = ownSlots + slot * slotVectors;
    uint4* old = ownSlots + previous * slotVectors;
    const uint4 sentinel = make_uint4(SENTINEL, SENTINEL, SENTINEL, SENTINEL);
    for (long long v = first; v < vectors; v += Rounds * stride) {
      uint4 mine[Rounds], got[Rounds];
#pragma unroll
      for (int r = 0; r < Rounds; ++r) {
        if (v + r * stride < vectors) {
          mine[r] = sanitize(input[v + r * stride]);
          got[r] = ld_volatile_v4(src + v + r * stride);
        }
      }
      for (bool first = true;; first = false) {
        // A thread that is ahead of the data backs off instead of re-reading its slot
        // continuously: those reads compete with the NVLink writes landing in the same memory.
        if (!first && sleepNs > 0) __nanosleep(sleepNs);
        bool wait = false;
#pragma unroll
        for (int r = 0; r < Rounds; ++r) {
          if (v + r * stride < vectors && pending(got[r])) {
            got[r] = ld_volatile_v4(src + v + r * stride);
            wait = wait || pending(got[r]);
          }
        }
        if (!wait) break;
      }
#pragma unroll
      for (int r = 0; r < Rounds; ++r) {
        if (v + r * stride < vectors) {
          output[v + r * stride] = rank == 0 ? sum_bf16(mine[r], got[r]) : sum_bf16(got[r], mine[r]);
          old[v + r * stride] = sentinel;
        }
      }
    }
  }
}

struct Gpu {
  int device;
  cudaStream_t stream;
  uint4 *input, *output, *slots, *peerSlots;
  uint32_t epoch = 0;
};

struct Config {
  int rounds, pushWarps, blocks, sleepNs;
};

static void enqueue(Gpu& g, long long vectors, const Config& c) {
  ++g.epoch;
  auto kernel = c.rounds == 1 ? lamport_ws<1> : c.rounds == 2 ? lamport_ws<2> : lamport_ws<4>;
  kernel<<<c.blocks, 512, 0, g.stream>>>(g.input, g.output, g.peerSlots, g.slots, vectors, vectors,
                                         g.epoch, g.device, c.pushWarps, c.sleepNs);
}

// Median microseconds per call (the slower GPU of each sample).
static double measure(std::vector<Gpu>& gpus, long long vectors, const Config& c, int calls,
                      int samples) {
  const std::vector<cudaStream_t> streams{gpus[0].stream, gpus[1].stream};
  const double ms = median_slowest_ms(2, streams, samples, [&](int g) {
    for (int k = 0; k < calls; ++k) enqueue(gpus[g], vectors, c);
  });
  return ms * 1000.0 / calls;
}

int main(int argc, char** argv) {
  const ProbeOptions options = parse_probe_options("lamport-oneshot-ws", argc, argv);
  const long long bytes = options.bytes;
  const int calls = options.calls, samples = options.samples;
  const long long vectors = bytes / 16;
  std::vector<Gpu> gpus(2);
  for (int g = 0; g < 2; ++g) {
    Gpu& gpu = gpus[g];
    gpu.device = g;
    CHECK(cudaSetDevice(g));
    CHECK(cudaDeviceEnablePeerAccess(1 - g, 0));
    CHECK(cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&gpu.input, bytes));
    CHECK(cudaMalloc(&gpu.output, bytes));
    CHECK(cudaMalloc(&gpu.slots, 3 * bytes));
    fill_sentinel<<<264, 512>>>(reinterpret_cast<uint32_t*>(gpu.slots), 3 * bytes / 4);
    const std::vector<uint16_t> random = random_bf16(bytes, g + 1);
    CHECK(cudaMemcpy(gpu.input, random.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());
  }
  gpus[0].peerSlots = gpus[1].slots;
  gpus[1].peerSlots = gpus[0].slots;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s x 2: flag-free warp-specialized one-shot of %lld MiB bf16, %d calls per sample, "
         "median of %d\n",
         prop.name, bytes >> 20, calls, samples);
  const int sms = prop.multiProcessorCount;
  std::vector<Config> configs;
  for (int rounds : {1, 2, 4})
    for (int sleepNs : {0, 64, 256, 1024}) configs.push_back(Config{rounds, 8, sms, sleepNs});
  for (int pushWarps : {6, 10}) configs.push_back(Config{2, pushWarps, sms, 256});
  for (const Config& c : configs) {
    for (int g = 0; g < 2; ++g) {
      CHECK(cudaSetDevice(g));
      CHECK(cudaMemset(gpus[g].output, 0, bytes));
      CHECK(cudaDeviceSynchronize());
    }
    const double us = measure(gpus, vectors, c, calls, samples);
    const bool ok = outputs_match(gpus, bytes);
    printf("rounds=%d push-warps=%-2d blocks=%-3d sleep=%-4dns %8.1f us  %6.1f GB/s busbw  %s\n",
           c.rounds, c.pushWarps, c.blocks, c.sleepNs, us, bytes / (us * 1e-6) / 1e9,
           ok ? "checked" : "MISMATCH");
    fflush(stdout);
    if (!ok) return 3;
  }
  return 0;
}
