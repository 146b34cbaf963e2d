// Whether filling the outputs before measuring moves gpucomm's plain all-reduce kernels, as it
// moves TensorRT-LLM's fused and plain kernels (results/2026-11-26-allreduce-fusion, run-v12).
// `gpucomm bench` fills every output with 0xff bytes before the call it checks, just before its
// timed calls; the ratios of the fused pattern to the plain all-reduce assume the fill moves
// neither. This probe times the runtime's flag-free one-shot (gpucomm_lamport_bf16) and two-shot
// (gpucomm_lamport2_bf16), built for world 2 as the runtime loads them, on 132 blocks of 512
// threads with programmatic dependent launch, at 0.5-4 MiB of bf16 a rank, with and without the
// fill, twice each in alternation; every measurement's last call is checked bit for bit against
// the host's bf16 sums on both GPUs.
//
//   nvcc -O3 -arch=sm_90 -cudart static -o plain-fill bench/probes/plain-fill.cu
//   ./plain-fill [--calls 10] [--samples 30]
#define GPUCOMM_WORLD 2
// allreduce.cu (through peer_memory.cuh) and probe.h both define these two helpers.
#define ld_acquire_sys allreduce_ld_acquire_sys
#define st_release_sys allreduce_st_release_sys
#include "../../runtime/cuda/src/main/cuda/allreduce.cu"
#undef ld_acquire_sys
#undef st_release_sys

#include "probe.h"

using Kernel = void (*)(const char*, char*, long long, const PeerBases, const PeerLayout, Control*,
                        int, int, int, long long, int);

constexpr long long MAX_BYTES = 4ll << 20;
// as PeerMemoryLayout aligns them: whole 16-byte vectors, the two-shot's slice plus a vector a rank
constexpr long long LAMPORT_STRIDE = MAX_BYTES;
constexpr long long LAMPORT2_STRIDE = MAX_BYTES / 2 + 16 * 2;

struct Gpu {
  cudaStream_t stream;
  char *input, *output, *area;
  Control* control;
};

static const char* const KERNEL_NAMES[] = {"lamport", "lamport2"};
static const Kernel KERNELS[] = {gpucomm_lamport_bf16, gpucomm_lamport2_bf16};

static void launch(Kernel kernel, Gpu& gpu, const PeerBases& peers, const PeerLayout& layout,
                   int rank, int blocks, long long bytes) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(GPUCOMM_THREADS);
  config.stream = gpu.stream;
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<const char*>(gpu.input), gpu.output, bytes,
                           peers, layout, gpu.control, rank, 2, 1, 0ll, 0));
}

int main(int argc, char** argv) {
  const ProbeOptions options = parse_probe_options("plain-fill", argc, argv);
  PeerLayout layout = {};
  layout.lamportOffset = 0;
  layout.lamportRankStride = LAMPORT_STRIDE;
  layout.lamport2Offset = 3 * 2 * LAMPORT_STRIDE;
  layout.lamport2RankStride = LAMPORT2_STRIDE;
  const long long area = layout.lamport2Offset + 2 * 3 * 2 * LAMPORT2_STRIDE;
  std::vector<Gpu> gpus(2);
  PeerBases peers = {};
  const std::vector<uint16_t> sentinel(area / 2, 0x8000);  // bf16 -0.0 in every lane: empty
  for (int g = 0; g < 2; ++g) {
    Gpu& gpu = gpus[g];
    CHECK(cudaSetDevice(g));
    CHECK(cudaDeviceEnablePeerAccess(1 - g, 0));
    CHECK(cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&gpu.input, MAX_BYTES));
    CHECK(cudaMalloc(&gpu.output, MAX_BYTES));
    CHECK(cudaMalloc(&gpu.area, area));
    CHECK(cudaMalloc(&gpu.control, sizeof(Control)));
    CHECK(cudaMemcpy(gpu.area, sentinel.data(), area, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(gpu.control, 0, sizeof(Control)));
    const auto input = random_bf16(MAX_BYTES, g + 1);
    CHECK(cudaMemcpy(gpu.input, input.data(), MAX_BYTES, cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());
    peers.base[g] = gpu.area;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = std::min(prop.multiProcessorCount, GPUCOMM_MAX_BLOCKS);
  printf("# %s x 2, %d blocks of %d threads: plain all-reduce (bf16), %d calls per sample, median "
         "of %d, us per call\n",
         prop.name, blocks, GPUCOMM_THREADS, options.calls, options.samples);
  printf("%-9s %8s %5s %6s %8s %8s  %s\n", "kernel", "bytes", "fill", "round", "graph", "eager",
         "check");
  const std::vector<cudaStream_t> streams{gpus[0].stream, gpus[1].stream};
  int failures = 0;
  for (long long bytes : {512ll << 10, 1ll << 20, 2ll << 20, 4ll << 20}) {
    for (int k = 0; k < 2; ++k) {
      for (int round = 1; round <= 2; ++round) {
        for (int fill = 0; fill <= 1; ++fill) {
          // no fill: the last measurement's sums stay, so a kernel that writes nothing would pass
          // its check; every fill=1 measurement checks on NaN-filled outputs
          if (fill) {
            for (int g = 0; g < 2; ++g) {
              CHECK(cudaSetDevice(g));
              CHECK(cudaMemset(gpus[g].output, 0xff, MAX_BYTES));
              CHECK(cudaDeviceSynchronize());
            }
          }
          auto call = [&](int g) { launch(KERNELS[k], gpus[g], peers, layout, g, blocks, bytes); };
          const double graph = median_us_per_call(streams, true, options.calls, options.samples, call);
          const double eager = median_us_per_call(streams, false, options.calls, options.samples, call);
          for (int g = 0; g < 2; ++g) {
            CHECK(cudaSetDevice(g));
            CHECK(cudaDeviceSynchronize());
          }
          const bool ok = outputs_match(gpus, bytes);
          failures += ok ? 0 : 1;
          printf("%-9s %8lld %5d %6d %8.2f %8.2f  %s\n", KERNEL_NAMES[k], bytes, fill, round, graph,
                 eager, ok ? "checked" : "MISMATCH");
          fflush(stdout);
        }
      }
    }
  }
  return failures == 0 ? 0 : 3;
}
