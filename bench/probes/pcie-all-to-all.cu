// Whether the PCIe links add bandwidth when every GPU of the host talks to every other at once:
// the traffic of a two-shot all-reduce on n ranks. Two parts:
//
// 1. Host memory alone, for sets of GPUs at once: each GPU copies `--mib` / n MiB to pinned host
//    memory (D2H), from pinned host memory (H2D), or both at once, so that GPUs whose PCIe links
//    share an uplink or a socket show it (GB/s per GPU per direction, the slowest GPU).
// 2. The two-shot's scatter (every GPU pushes a part to each of its n - 1 peers by SM stores), or
//    scatter and a pulling gather at once, with a share of every scatter part sent through host
//    memory instead: the sender's copy engine copies it to pinned host memory chunk by chunk and
//    the receiver's copy engine copies each chunk on as soon as it is there. The figure is
//    microseconds per transfer (the slowest GPU, median of `--samples` samples of `--calls`
//    transfers back to back) and the NVLink-equivalent GB/s per GPU (what was moved, whichever way,
//    over that time). Every destination is compared with its source afterwards.
//
//   nvcc -O3 -arch=sm_90 -cudart static -o pcie-all-to-all bench/probes/pcie-all-to-all.cu
//   ./pcie-all-to-all [--mib 64] [--calls 10] [--samples 30]
#include <functional>

#include "probe.h"
#include "all-to-all.h"

constexpr int MAX_CHUNKS = 8;

struct Gpu {
  int device;
  int sms;
  cudaStream_t main, second, out, in;
  cudaEvent_t fork, pullJoin, outJoin, inJoin;
  cudaEvent_t outDone[MAX_GPUS - 1][MAX_CHUNKS];  // [peer index][chunk]
  cudaEvent_t inDone[MAX_GPUS - 1];               // [sender's peer index]: its staging is free
  char* src;      // n - 1 parts: part p goes to peer_of(g, p)
  char* dst;      // n - 1 parts: one per sender, at slot(sender, g)
  char* pulled;   // n - 1 parts read from the peers' src (gather)
  char* staging;  // pinned host memory: n - 1 parts' host shares, filled by this GPU
  char* landing;  // device memory the host-alone copies write (part 1)
};

// Microseconds of the slowest GPU in `devices`, median of `samples`: every listed GPU's main
// stream is held until enqueue_all() has enqueued everything.
static double median_us(std::vector<Gpu>& gpus, const std::vector<int>& devices, int samples,
                        int calls, const std::function<void()>& enqueue_all) {
  ReleaseFlag flag;
  std::vector<double> times;
  for (int sample = -3; sample < samples; ++sample) {
    flag.rearm();
    std::vector<cudaEvent_t> start(devices.size()), stop(devices.size());
    for (size_t i = 0; i < devices.size(); ++i) {
      CHECK(cudaSetDevice(devices[i]));
      CHECK(cudaEventCreate(&start[i]));
      CHECK(cudaEventCreate(&stop[i]));
      flag.hold(gpus[devices[i]].main);
      CHECK(cudaEventRecord(start[i], gpus[devices[i]].main));
    }
    enqueue_all();
    for (size_t i = 0; i < devices.size(); ++i) {
      CHECK(cudaSetDevice(devices[i]));
      CHECK(cudaEventRecord(stop[i], gpus[devices[i]].main));
      CHECK(cudaGetLastError());
    }
    flag.release();
    float slowest = 0;
    for (size_t i = 0; i < devices.size(); ++i) {
      CHECK(cudaSetDevice(devices[i]));
      CHECK(cudaEventSynchronize(stop[i]));
      float ms;
      CHECK(cudaEventElapsedTime(&ms, start[i], stop[i]));
      slowest = std::max(slowest, ms);
      CHECK(cudaEventDestroy(start[i]));
      CHECK(cudaEventDestroy(stop[i]));
    }
    if (sample >= 0) times.push_back(slowest);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2] * 1000.0 / calls;
}

enum class Direction { D2H, H2D, BOTH };

// Part 1: `bytes` per GPU per direction between each listed GPU and its own pinned staging.
static void enqueue_host_alone(Gpu& gpu, long long bytes, Direction d) {
  CHECK(cudaSetDevice(gpu.device));
  CHECK(cudaEventRecord(gpu.fork, gpu.main));
  if (d != Direction::H2D) {
    CHECK(cudaStreamWaitEvent(gpu.out, gpu.fork, 0));
    CHECK(cudaMemcpyAsync(gpu.staging, gpu.src, bytes, cudaMemcpyDeviceToHost, gpu.out));
    CHECK(cudaEventRecord(gpu.outJoin, gpu.out));
    CHECK(cudaStreamWaitEvent(gpu.main, gpu.outJoin, 0));
  }
  if (d != Direction::D2H) {
    CHECK(cudaStreamWaitEvent(gpu.in, gpu.fork, 0));
    CHECK(cudaMemcpyAsync(gpu.landing, gpu.staging + bytes, bytes, cudaMemcpyHostToDevice,
                          gpu.in));
    CHECK(cudaEventRecord(gpu.inJoin, gpu.in));
    CHECK(cudaStreamWaitEvent(gpu.main, gpu.inJoin, 0));
  }
}

struct Split {
  double hostShare;  // of every scatter part, rounded down to 64 KiB
  int chunks;
  bool gather;  // a pulling gather of every part beside the scatter
};

static long long host_bytes(const Split& s, long long part) {
  return static_cast<long long>(part * s.hostShare) >> 16 << 16;
}

// Part 2: one scatter (and gather) on every GPU. A sender's staging is refilled only after the
// receiver has copied the previous transfer's chunks on (the wait on the receiver's inDone).
static void enqueue_split(std::vector<Gpu>& gpus, long long part, const Split& s) {
  const int n = static_cast<int>(gpus.size());
  const long long viaHost = host_bytes(s, part);
  const long long chunk = viaHost > 0 ? (viaHost / s.chunks + 15) / 16 * 16 : 0;
  for (int g = 0; g < n; ++g) {
    Gpu& self = gpus[g];
    CHECK(cudaSetDevice(self.device));
    CHECK(cudaEventRecord(self.fork, self.main));
    if (viaHost == 0) continue;
    CHECK(cudaStreamWaitEvent(self.out, self.fork, 0));
    for (int p = 0; p < n - 1; ++p) {
      const int peer = peer_of(g, p, n);
      CHECK(cudaStreamWaitEvent(self.out, gpus[peer].inDone[index_of(peer, g, n)], 0));
    }
    // Chunk-major, so that every receiver gets its first chunk early.
    for (int k = 0; k < s.chunks; ++k) {
      const long long begin = k * chunk;
      const long long length = std::min(viaHost, begin + chunk) - begin;
      for (int p = 0; p < n - 1 && length > 0; ++p) {
        CHECK(cudaMemcpyAsync(self.staging + p * viaHost + begin, self.src + p * part + begin,
                              length, cudaMemcpyDeviceToHost, self.out));
        CHECK(cudaEventRecord(self.outDone[p][k], self.out));
      }
    }
    CHECK(cudaEventRecord(self.outJoin, self.out));
  }
  for (int g = 0; g < n; ++g) {
    Gpu& self = gpus[g];
    CHECK(cudaSetDevice(self.device));
    if (viaHost > 0) {
      CHECK(cudaStreamWaitEvent(self.in, self.fork, 0));
      for (int k = 0; k < s.chunks; ++k) {
        const long long begin = k * chunk;
        const long long length = std::min(viaHost, begin + chunk) - begin;
        for (int q = 0; q < n - 1 && length > 0; ++q) {
          const int sender = peer_of(g, q, n);
          const int p = index_of(sender, g, n);
          CHECK(cudaStreamWaitEvent(self.in, gpus[sender].outDone[p][k], 0));
          CHECK(cudaMemcpyAsync(self.dst + slot(sender, g, part) + begin,
                                gpus[sender].staging + p * viaHost + begin, length,
                                cudaMemcpyHostToDevice, self.in));
        }
      }
      for (int q = 0; q < n - 1; ++q) CHECK(cudaEventRecord(self.inDone[q], self.in));
      CHECK(cudaEventRecord(self.inJoin, self.in));
    }
    const int blocks = s.gather ? self.sms : 2 * self.sms;  // each kernel; stores alone: 2 per SM
    if (s.gather) {
      CHECK(cudaEventRecord(self.fork, self.main));
      CHECK(cudaStreamWaitEvent(self.second, self.fork, 0));
      Destinations from{};
      for (int p = 0; p < n - 1; ++p) {
        const int peer = peer_of(g, p, n);
        from.to[p] = reinterpret_cast<uint4*>(gpus[peer].src + index_of(peer, g, n) * part);
      }
      pull_from_all<<<blocks / (n - 1) * (n - 1), 512, 0, self.second>>>(
          from, reinterpret_cast<uint4*>(self.pulled), n - 1, part / 16, part / 16);
      CHECK(cudaEventRecord(self.pullJoin, self.second));
    }
    Destinations to{};
    for (int p = 0; p < n - 1; ++p) {
      const int peer = peer_of(g, p, n);
      to.to[p] = reinterpret_cast<uint4*>(gpus[peer].dst + slot(g, peer, part) + viaHost);
    }
    push_to_all<<<blocks / (n - 1) * (n - 1), 512, 0, self.main>>>(
        reinterpret_cast<const uint4*>(self.src + viaHost), to, n - 1, (part - viaHost) / 16,
        part / 16);
    if (s.gather) CHECK(cudaStreamWaitEvent(self.main, self.pullJoin, 0));
    if (viaHost > 0) {
      CHECK(cudaStreamWaitEvent(self.main, self.outJoin, 0));
      CHECK(cudaStreamWaitEvent(self.main, self.inJoin, 0));
    }
  }
}

static bool destinations_match(std::vector<Gpu>& gpus, long long part, bool gather) {
  const int n = static_cast<int>(gpus.size());
  std::vector<char> a(part), b(part);
  for (int g = 0; g < n; ++g) {
    for (int p = 0; p < n - 1; ++p) {
      const int peer = peer_of(g, p, n);
      CHECK(cudaSetDevice(g));
      CHECK(cudaMemcpy(a.data(), gpus[g].src + p * part, part, cudaMemcpyDeviceToHost));
      CHECK(cudaSetDevice(peer));
      CHECK(cudaMemcpy(b.data(), gpus[peer].dst + slot(g, peer, part), part,
                       cudaMemcpyDeviceToHost));
      if (memcmp(a.data(), b.data(), part) != 0) return false;
      if (gather) {
        CHECK(cudaMemcpy(b.data(), gpus[peer].pulled + index_of(peer, g, n) * part, part,
                         cudaMemcpyDeviceToHost));
        if (memcmp(a.data(), b.data(), part) != 0) return false;
      }
    }
  }
  return true;
}

int main(int argc, char** argv) {
  const ProbeOptions o = parse_probe_options("pcie-all-to-all", argc, argv);
  int n = 0;
  CHECK(cudaGetDeviceCount(&n));
  if (n < 2 || n > MAX_GPUS) {
    fprintf(stderr, "pcie-all-to-all: needs 2 to %d GPUs, found %d\n", MAX_GPUS, n);
    return 2;
  }
  const long long part = o.bytes / n / 16 * 16;
  const long long total = part * (n - 1);
  std::vector<Gpu> gpus(n);
  for (int g = 0; g < n; ++g) {
    Gpu& gpu = gpus[g];
    gpu.device = g;
    CHECK(cudaSetDevice(g));
    for (int q = 0; q < n; ++q)
      if (q != g) CHECK(cudaDeviceEnablePeerAccess(q, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, g));
    gpu.sms = prop.multiProcessorCount;
    for (cudaStream_t* s : {&gpu.main, &gpu.second, &gpu.out, &gpu.in})
      CHECK(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking));
    for (cudaEvent_t* e : {&gpu.fork, &gpu.pullJoin, &gpu.outJoin, &gpu.inJoin})
      CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
    for (auto& row : gpu.outDone)
      for (auto& e : row) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    for (auto& e : gpu.inDone) {
      CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      CHECK(cudaEventRecord(e, gpu.in));  // the first transfer's wait on it is a no-op
    }
    CHECK(cudaMalloc(&gpu.src, total));
    CHECK(cudaMalloc(&gpu.dst, total));
    CHECK(cudaMalloc(&gpu.pulled, total));
    CHECK(cudaMalloc(&gpu.landing, total));
    CHECK(cudaHostAlloc(&gpu.staging, 2 * total, cudaHostAllocPortable));
    const std::vector<uint32_t> random = random_words(total, g + 1);
    CHECK(cudaMemcpy(gpu.src, random.data(), total, cudaMemcpyHostToDevice));
    memcpy(gpu.staging, random.data(), total);
    memcpy(gpu.staging + total, random.data(), total);
    CHECK(cudaDeviceSynchronize());
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s x %d, %lld MiB: part 1, host memory alone, %.2f MiB per GPU per direction\n",
         prop.name, n, o.bytes >> 20, total / 1048576.0);
  std::vector<std::vector<int>> sets;
  for (int g = 0; g < n; ++g) sets.push_back({g});
  for (int g = 1; g < n; ++g) sets.push_back({0, g});
  if (n >= 4) sets.push_back({1, 2}), sets.push_back({2, 3}), sets.push_back({1, 3});
  std::vector<int> all;
  for (int g = 0; g < n; ++g) all.push_back(g);
  sets.push_back(all);
  for (const auto& set : sets) {
    std::string label;
    for (int g : set) label += (label.empty() ? "" : ",") + std::to_string(g);
    for (Direction d : {Direction::D2H, Direction::H2D, Direction::BOTH}) {
      const double us = median_us(gpus, set, o.samples, o.calls, [&]() {
        for (int k = 0; k < o.calls; ++k)
          for (int g : set) enqueue_host_alone(gpus[g], total, d);
      });
      printf("host gpus=%-8s %-4s %7.1f GB/s per GPU per direction\n", label.c_str(),
             d == Direction::D2H ? "d2h" : d == Direction::H2D ? "h2d" : "both",
             total / (us * 1e-6) / 1e9);
      fflush(stdout);
    }
  }
  printf("# part 2: scatter of %.2f MiB to each of %d peers (and a pulling gather of as much), a "
         "share of each scatter part through host memory, %d transfers per sample, median of %d\n",
         part / 1048576.0, n - 1, o.calls, o.samples);
  for (bool gather : {false, true}) {
    std::vector<Split> splits{{0, 1, gather}};
    for (double share : {0.04, 0.06, 0.08, 0.10, 0.12, 0.15})
      for (int chunks : {1, 2, 4}) splits.push_back({share, chunks, gather});
    for (const Split& s : splits) {
      clear_receive_buffers(gpus, total);
      const double us = median_us(gpus, all, o.samples, o.calls, [&]() {
        for (int k = 0; k < o.calls; ++k) enqueue_split(gpus, part, s);
      });
      const bool ok = destinations_match(gpus, part, gather);
      const double moved = static_cast<double>(total) * (gather ? 2 : 1);
      printf("%-15s host-share=%.2f chunks=%d %8.1f us %7.1f GB/s per GPU  %s\n",
             gather ? "scatter+gather" : "scatter", s.hostShare, s.chunks, us,
             moved / (us * 1e-6) / 1e9, ok ? "checked" : "MISMATCH");
      fflush(stdout);
      if (!ok) return 3;
    }
  }
  return 0;
}
