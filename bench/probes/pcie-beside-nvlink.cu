// Whether the PCIe links add bandwidth beside NVLink between two GPUs: each GPU sends a share of
// its buffer through pinned host memory (its copy engine copies chunk after chunk to the host,
// the peer's copy engine copies each chunk on into the peer's memory as soon as it is there) while
// its SM stores push the rest over NVLink, both GPUs at once. Share 1 is the host path alone.
//
// The figure is GB/s (10^9 bytes) per direction: `--calls` transfers back to back between CUDA
// events on both GPUs, the slower GPU of each sample, the median of `--samples` samples. Every
// destination is compared with its source afterwards.
//
//   nvcc -O3 -arch=sm_90 -cudart static -o pcie-beside-nvlink bench/probes/pcie-beside-nvlink.cu
//   ./pcie-beside-nvlink [--mib 64] [--calls 10] [--samples 30] [--shm]
// --shm stages in a file of /dev/shm, mapped and registered (cudaHostRegister), as processes that
// share the staging must, instead of cudaHostAlloc memory.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "probe.h"

constexpr int MAX_CHUNKS = 16;

// Grid-stride 16-byte copies into the peer, 4 loads in flight per thread before the stores.
__global__ void sm_push(const uint4* __restrict__ src, uint4* dst, long long vectors) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < vectors; i += 4 * stride) {
    uint4 x[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) x[u] = __ldg(src + i + u * stride);
#pragma unroll
    for (int u = 0; u < 4; ++u) dst[i + u * stride] = x[u];
  }
  for (; i < vectors; i += stride) dst[i] = src[i];
}

struct Gpu {
  int device;
  int blocks;
  cudaStream_t main, out, in;  // out: this GPU's bytes to the host; in: the peer's bytes onward
  cudaEvent_t fork, outJoin, inJoin, outDone[MAX_CHUNKS];
  char *src, *dst;
  char* staging;  // pinned host memory this GPU's copy engine fills for the peer
};

struct Config {
  double hostShare;  // of the bytes, rounded down to whole 64 KiB, sent through host memory
  int chunks;
};

static long long host_bytes(const Config& c, long long bytes) {
  return static_cast<long long>(bytes * c.hostShare) >> 16 << 16;
}

// One transfer each way. The staging area of GPU g is reused by the next transfer only after the
// peer has copied it on (its copy stream waits for the peer's last inbound copy).
static void enqueue_transfer(std::vector<Gpu>& gpus, long long bytes, const Config& c) {
  const long long viaHost = host_bytes(c, bytes);
  const long long chunk = viaHost > 0 ? ((viaHost / c.chunks + 15) / 16 * 16) : 0;
  for (int g = 0; g < 2; ++g) {
    Gpu& self = gpus[g];
    CHECK(cudaSetDevice(self.device));
    CHECK(cudaEventRecord(self.fork, self.main));
    if (viaHost == 0) continue;
    CHECK(cudaStreamWaitEvent(self.out, self.fork, 0));
    CHECK(cudaStreamWaitEvent(self.out, gpus[1 - g].inJoin, 0));
    for (int k = 0; k < c.chunks; ++k) {
      const long long begin = k * chunk;
      const long long length = std::min(viaHost, begin + chunk) - begin;
      if (length <= 0) break;
      CHECK(cudaMemcpyAsync(self.staging + begin, self.src + begin, length,
                            cudaMemcpyDeviceToHost, self.out));
      CHECK(cudaEventRecord(self.outDone[k], self.out));
    }
    CHECK(cudaEventRecord(self.outJoin, self.out));
  }
  for (int g = 0; g < 2; ++g) {
    Gpu& self = gpus[g];
    const Gpu& peer = gpus[1 - g];
    CHECK(cudaSetDevice(self.device));
    if (viaHost > 0) {
      CHECK(cudaStreamWaitEvent(self.in, self.fork, 0));
      for (int k = 0; k < c.chunks; ++k) {
        const long long begin = k * chunk;
        const long long length = std::min(viaHost, begin + chunk) - begin;
        if (length <= 0) break;
        CHECK(cudaStreamWaitEvent(self.in, peer.outDone[k], 0));
        CHECK(cudaMemcpyAsync(self.dst + begin, peer.staging + begin, length,
                              cudaMemcpyHostToDevice, self.in));
      }
      CHECK(cudaEventRecord(self.inJoin, self.in));
    }
    const long long vectors = (bytes - viaHost) / 16;
    if (vectors > 0) {
      sm_push<<<self.blocks, 512, 0, self.main>>>(reinterpret_cast<const uint4*>(self.src + viaHost),
                                                  reinterpret_cast<uint4*>(peer.dst + viaHost),
                                                  vectors);
    }
    if (viaHost > 0) {
      CHECK(cudaStreamWaitEvent(self.main, self.outJoin, 0));
      CHECK(cudaStreamWaitEvent(self.main, self.inJoin, 0));
    }
  }
}

// Median GB/s per direction; each sample holds both main streams until everything is enqueued.
static double measure(std::vector<Gpu>& gpus, long long bytes, const Config& c,
                      const ProbeOptions& o) {
  const double ms =
      median_slowest_ms_together(2, {gpus[0].main, gpus[1].main}, o.samples, [&]() {
        for (int k = 0; k < o.calls; ++k) enqueue_transfer(gpus, bytes, c);
      });
  return static_cast<double>(bytes) * o.calls / (ms * 1e-3) / 1e9;
}

static bool destinations_match(std::vector<Gpu>& gpus, long long bytes) {
  std::vector<char> a(bytes), b(bytes);
  for (int g = 0; g < 2; ++g) {
    CHECK(cudaSetDevice(gpus[g].device));
    CHECK(cudaMemcpy(a.data(), gpus[g].src, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaSetDevice(gpus[1 - g].device));
    CHECK(cudaMemcpy(b.data(), gpus[1 - g].dst, bytes, cudaMemcpyDeviceToHost));
    if (memcmp(a.data(), b.data(), bytes) != 0) return false;
  }
  return true;
}

// Pinned staging from a shared-memory file, as two processes would map it.
static char* shm_staging(long long bytes, int gpu) {
  char name[64];
  snprintf(name, sizeof name, "/dev/shm/pcie-beside-nvlink-%d-%d", getpid(), gpu);
  const int fd = open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0 || ftruncate(fd, bytes) != 0) {
    fprintf(stderr, "pcie-beside-nvlink: cannot create %s\n", name);
    exit(1);
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  unlink(name);
  if (p == MAP_FAILED) {
    fprintf(stderr, "pcie-beside-nvlink: cannot map %s\n", name);
    exit(1);
  }
  CHECK(cudaHostRegister(p, bytes, cudaHostRegisterPortable));
  return static_cast<char*>(p);
}

int main(int argc, char** argv) {
  bool shm = false;
  if (argc > 1 && std::string(argv[argc - 1]) == "--shm") shm = true, --argc;
  const ProbeOptions o = parse_probe_options("pcie-beside-nvlink", argc, argv);
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  if (count < 2) {
    fprintf(stderr, "pcie-beside-nvlink: needs two GPUs, found %d\n", count);
    return 2;
  }
  std::vector<Gpu> gpus(2);
  for (int g = 0; g < 2; ++g) {
    Gpu& gpu = gpus[g];
    gpu.device = g;
    CHECK(cudaSetDevice(g));
    CHECK(cudaDeviceEnablePeerAccess(1 - g, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, g));
    gpu.blocks = prop.multiProcessorCount;
    CHECK(cudaStreamCreateWithFlags(&gpu.main, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&gpu.out, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&gpu.in, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&gpu.fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&gpu.outJoin, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&gpu.inJoin, cudaEventDisableTiming));
    for (auto& e : gpu.outDone) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    CHECK(cudaMalloc(&gpu.src, o.bytes));
    CHECK(cudaMalloc(&gpu.dst, o.bytes));
    if (shm) {
      gpu.staging = shm_staging(o.bytes, g);
    } else {
      CHECK(cudaHostAlloc(&gpu.staging, o.bytes, cudaHostAllocPortable));
    }
    const std::vector<uint32_t> random = random_words(o.bytes, g + 1);
    CHECK(cudaMemcpy(gpu.src, random.data(), o.bytes, cudaMemcpyHostToDevice));
    // A first record, so that the first transfer's wait on it is a no-op.
    CHECK(cudaEventRecord(gpu.inJoin, gpu.in));
    CHECK(cudaDeviceSynchronize());
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s x 2: %lld MiB each way, a share through pinned host memory (%s) and the rest by "
         "SM stores over NVLink, %d transfers per sample, median of %d\n",
         prop.name, o.bytes >> 20, shm ? "/dev/shm file, registered" : "cudaHostAlloc", o.calls,
         o.samples);
  std::vector<Config> configs{{0, 1}};
  for (int chunks : {1, 4, 8, 16}) configs.push_back({1.0, chunks});
  for (double share : {0.04, 0.06, 0.08, 0.10, 0.12, 0.15}) {
    for (int chunks : {2, 4, 8}) configs.push_back({share, chunks});
  }
  for (const Config& c : configs) {
    for (auto& gpu : gpus) {
      CHECK(cudaSetDevice(gpu.device));
      CHECK(cudaMemset(gpu.dst, 0, o.bytes));
      CHECK(cudaDeviceSynchronize());
    }
    const double rate = measure(gpus, o.bytes, c, o);
    const bool ok = destinations_match(gpus, o.bytes);
    printf("host-share=%.2f chunks=%-2d %7.1f GB/s per direction, both ways  %s\n", c.hostShare,
           c.chunks, rate, ok ? "checked" : "MISMATCH");
    fflush(stdout);
    if (!ok) return 3;
  }
  return 0;
}
