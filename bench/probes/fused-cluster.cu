// Why the fused one-shot's cluster kernel (fused_lamport_cluster, GPUCOMM_FUSED_CLUSTER=on) was
// slower than the spread kernel it was meant to beat: where its blocks run.
//
// The runtime launches it with blocks of at most 256 threads built for two blocks a
// multiprocessor (__launch_bounds__(256, 2)), so that every cluster of the grid is resident at
// once however the clusters fall on the GPCs. Two blocks a multiprocessor also lets the block
// scheduler put two blocks of one cluster on one multiprocessor: the row's slices then share its
// load and store bandwidth, which splitting the row was meant to spread, and the sends run on
// fewer multiprocessors. This probe times, on two GPUs of one process, tokens x 8192 bf16:
//
//   spread        fused_lamport_spread, 132 x 512 threads (the runtime's default kernel)
//   cluster       fused_lamport_cluster as the runtime launches it (FusedClusterShape: clusters
//                 of 8 x 128 threads up to 16 rows, 4 x 256 up to 33, 2 x 256 up to 66, on 128
//                 or 132 blocks), two blocks allowed a multiprocessor
//   cluster-1sm   the same, with enough dynamic shared memory that one block fills a
//                 multiprocessor, on as many whole clusters as the GPU holds at once
//                 (cudaOccupancyMaxActiveClusters), where that still gives every row a cluster
//
// all with the world size a compile-time 2 and programmatic dependent launch, and records on which
// multiprocessor (%smid) each block of the last call ran: how many multiprocessors the grid used,
// and how many clusters had two blocks on one. residualOut of every variant is checked bit for bit
// against a host reference on both GPUs, out within 2^-7 of a double reference and bit for bit
// between the GPUs.
//
// Since 2026-11-30 `spread` runs fusion.cu's two-rank row path (spread_rows_of_two_ranks) with one
// block a row, where the runtime gives 8-66 rows two; its recorded results are of the kernel
// before. Its kernels take the structures by value, not as the runtime's __grid_constant__ ones:
// each thread first copies them to its stack (0.13-0.47 us at 1-4 rows in fused-residency.cu).
//
//   nvcc -O3 -arch=sm_90 -cudart static -o fused-cluster bench/probes/fused-cluster.cu
//   ./fused-cluster [--calls 10] [--samples 30]
// fusion.cu and probe.h both define these two helpers: fusion.cu's are renamed.
#define ld_acquire_sys fusion_ld_acquire_sys
#define st_release_sys fusion_st_release_sys
#include "../../runtime/cuda/src/main/cuda/fusion.cu"
#undef ld_acquire_sys
#undef st_release_sys

#include <set>

#include "probe.h"
#include "fused-probe.h"

using bf16 = __nv_bfloat16;

__device__ uint32_t g_smid[FUSION_MAX_BLOCKS];

__device__ __forceinline__ void record_smid() {
  if (threadIdx.x == 0) {
    uint32_t id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    g_smid[blockIdx.x] = id;
  }
}

__global__ void __launch_bounds__(FUSION_THREADS, 1)
    probe_spread(RowCall c, FusionPeers peers, FusionLayout layout, FusionControl* control,
                 int rank) {
  fused_lamport_spread<bf16>(c, peers, layout, control, rank, 2);
  record_smid();
}

__global__ void __launch_bounds__(CLUSTER_THREADS, 2)
    probe_cluster(RowCall c, FusionPeers peers, FusionLayout layout, FusionControl* control,
                  int rank) {
  fused_lamport_cluster<bf16>(c, peers, layout, control, rank, 2);
  record_smid();
}

using Kernel = void (*)(RowCall, FusionPeers, FusionLayout, FusionControl*, int);

constexpr int HIDDEN = 8192;
constexpr int ROW_VECTORS = HIDDEN * 2 / 16;
constexpr int MAX_TOKENS = 66;
constexpr long long ROW_BYTES = HIDDEN * 2;
constexpr long long CAPACITY = MAX_TOKENS * ROW_BYTES;  // one rank's rows in a slot
// more than half of an H100's or H200's 228 KiB of shared memory a multiprocessor
constexpr int ONE_BLOCK_SMEM = 120 << 10;

enum Variant { SPREAD, CLUSTER, CLUSTER_1SM };
static const char* const VARIANT_NAMES[] = {"spread", "cluster", "cluster-1sm"};

// How a variant launches a call of `tokens` rows; blocks == 0: it cannot take the call.
struct Shape {
  int blocks, threads, clusterSize, smem;
};

// The runtime's FusedClusterShape for 8192 bf16 on `gridBlocks`: the largest cluster (8, 4, 2)
// whose slices hold at least 128 vectors and whose clusters give every row one.
static int runtime_cluster_size(long long tokens, int gridBlocks) {
  for (int size = 8; size >= 2; size /= 2) {
    if (ROW_VECTORS / size >= 128 && tokens * size <= gridBlocks) return size;
  }
  return 0;
}

static void launch(Variant v, const Shape& s, FusedGpu& gpu, const FusionPeers& peers,
                   const FusionLayout& layout, int rank, long long tokens) {
  RowCall c{gpu.input, gpu.residualIn, gpu.gamma, gpu.residualOut, gpu.output, tokens, HIDDEN,
            1e-6f, 0.f, 1};
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(s.blocks);
  config.blockDim = dim3(s.threads);
  config.dynamicSmemBytes = s.smem;
  config.stream = gpu.stream;
  cudaLaunchAttribute attributes[2];
  attributes[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attributes[0].val.programmaticStreamSerializationAllowed = 1;
  attributes[1].id = cudaLaunchAttributeClusterDimension;
  attributes[1].val.clusterDim.x = s.clusterSize;
  attributes[1].val.clusterDim.y = 1;
  attributes[1].val.clusterDim.z = 1;
  config.attrs = attributes;
  config.numAttrs = v == SPREAD ? 1 : 2;
  const Kernel kernel = v == SPREAD ? probe_spread : probe_cluster;
  CHECK(cudaLaunchKernelEx(&config, kernel, c, peers, layout, gpu.control, rank));
}

static Shape shape_of(Variant v, long long tokens, int smCount) {
  const int grid = std::min(smCount, FUSION_MAX_BLOCKS);
  if (v == SPREAD) return {grid, FUSION_THREADS, 1, 0};
  const int size = runtime_cluster_size(tokens, grid);
  if (size == 0) return {0, 0, 0, 0};
  const int slice = ROW_VECTORS / size;
  const int threads = std::min(CLUSTER_THREADS, ((slice + 31) / 32) * 32);
  Shape s{(grid / size) * size, threads, size, v == CLUSTER_1SM ? ONE_BLOCK_SMEM : 0};
  if (v == CLUSTER_1SM) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(s.blocks);
    config.blockDim = dim3(s.threads);
    config.dynamicSmemBytes = s.smem;
    cudaLaunchAttribute cluster;
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = size;
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = 1;
    int clusters = 0;
    CHECK(cudaOccupancyMaxActiveClusters(&clusters, probe_cluster, &config));
    s.blocks = std::min(s.blocks, clusters * size);
    if (tokens > clusters) return {0, 0, 0, 0};  // a row without a cluster
  }
  return s;
}

// Where GPU 0's blocks of the last call ran: multiprocessors used, and clusters of `size` blocks
// with two or more on one multiprocessor.
static std::string placement(int blocks, int size) {
  std::vector<uint32_t> smid(blocks);
  CHECK(cudaSetDevice(0));
  CHECK(cudaMemcpyFromSymbol(smid.data(), g_smid, blocks * sizeof(uint32_t)));
  const std::set<uint32_t> used(smid.begin(), smid.end());
  int doubled = 0;
  for (int first = 0; first + size <= blocks; first += size) {
    const std::set<uint32_t> mine(smid.begin() + first, smid.begin() + first + size);
    doubled += (int)mine.size() < size ? 1 : 0;
  }
  char text[96];
  snprintf(text, sizeof text, "%3d SMs, %2d of %2d clusters doubled up", (int)used.size(), doubled,
           blocks / size);
  return text;
}

int main(int argc, char** argv) {
  const ProbeOptions options = parse_probe_options("fused-cluster", argc, argv);
  FusionPeers peers = {};
  const FusionLayout layout = lamport_oneshot_layout(CAPACITY);
  const long long area = lamport_oneshot_area_bytes(CAPACITY);
  std::vector<FusedGpu> gpus = open_fused_gpus(peers, CAPACITY, ROW_BYTES, area, sizeof(FusionControl));
  reset_fused_areas(gpus, area, sizeof(FusionControl));
  for (int g = 0; g < 2; ++g) {
    CHECK(cudaSetDevice(g));
    CHECK(cudaFuncSetAttribute(probe_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               ONE_BLOCK_SMEM));
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  for (Kernel kernel : {probe_spread, probe_cluster}) {
    cudaFuncAttributes attributes;
    CHECK(cudaFuncGetAttributes(&attributes, kernel));
    printf("# %s: %d registers, %zu B local\n", kernel == probe_spread ? "spread" : "cluster",
           attributes.numRegs, attributes.localSizeBytes);
  }
  printf("# %s x 2, %d SMs: fused all-reduce + residual + RMSNorm (hidden %d bf16), %d calls per "
         "sample, median of %d, us per call\n",
         prop.name, prop.multiProcessorCount, HIDDEN, options.calls, options.samples);
  printf("%-12s %6s %6s %7s %7s %8s %8s  %-40s %s\n", "variant", "tokens", "blocks", "threads",
         "cluster", "graph", "eager", "placement (GPU 0, last call)", "check");
  const std::vector<cudaStream_t> streams{gpus[0].stream, gpus[1].stream};
  int failures = 0;
  // 1-8 tokens: the decode calls, where each row's cluster has the most of the grid to itself
  for (long long tokens : {1, 2, 4, 8, 16, 32, 64}) {
    for (Variant v : {SPREAD, CLUSTER, CLUSTER_1SM}) {
      const Shape s = shape_of(v, tokens, prop.multiProcessorCount);
      if (s.blocks == 0) {
        printf("%-12s %6lld  (no shape: a row would have no cluster)\n", VARIANT_NAMES[v], tokens);
        continue;
      }
      auto call = [&](int g) { launch(v, s, gpus[g], peers, layout, g, tokens); };
      fill_fused_outputs(gpus, CAPACITY);  // a wrong kernel cannot pass on the last call's outputs
      const double graph = median_us_per_call(streams, true, options.calls, options.samples, call);
      const double eager = median_us_per_call(streams, false, options.calls, options.samples, call);
      for (int g = 0; g < 2; ++g) {
        CHECK(cudaSetDevice(g));
        CHECK(cudaDeviceSynchronize());
      }
      const bool ok = check_fused_outputs(gpus, tokens, HIDDEN, {true, true, false});
      failures += ok ? 0 : 1;
      printf("%-12s %6lld %6d %7d %7d %8.2f %8.2f  %-40s %s\n", VARIANT_NAMES[v], tokens, s.blocks,
             s.threads, s.clusterSize, graph, eager, placement(s.blocks, s.clusterSize).c_str(),
             ok ? "checked" : "MISMATCH");
      fflush(stdout);
    }
  }
  return failures == 0 ? 0 : 3;
}
