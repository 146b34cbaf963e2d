// Where the fused one-shot's extra microseconds go: gpucomm's fused_lamport_spread (all-reduce +
// residual + RMSNorm, flag-free) on two GPUs, against versions of it with parts taken away, and
// each built for one or two resident blocks per multiprocessor.
//
// The plain Lamport one-shot (64 registers a thread) leaves room for a second block of 512
// threads on every multiprocessor, so with programmatic dependent launch the next call's blocks
// are resident before this call's leave; fused_lamport_spread takes 126 registers, which fills
// the register file with one block. The variants:
//
//   full          fused_lamport_spread itself (the device function the runtime launches)
//   no-norm       the same sends and row waits, residual added and residualOut stored; no
//                 block reduction, no out
//   sum-only      the same sends and row waits; the sum stored; no residual, no norm
//   plain-wait    the same sends; every thread of the grid waits for one vector, as the plain
//                 Lamport one-shot does, and stores the sum
//   lean-full     the whole pattern written for two ranks only: each vector's residualOut stored
//                 as soon as it is summed, then the block reduction and out
//   lean-warp-sum lean-full with the sum of squares taken over the warp only (the block barrier's
//                 cost; out is wrong and not checked)
//   lean-no-out   lean-full storing one word per row instead of out (the out stores' cost)
//   plain-pairs   plain-wait with the plain one-shot's sends: (destination, vector) pairs dealt to
//                 consecutive threads, two per thread
//   lean-pairs    lean-full with those sends
//   full-w2       full with the world size a constant when compiling
//   full-w2-copies full-w2 with two blocks finishing each row where the runtime's host has them
//                 (two ranks, 8 rows up to half the grid: FusedRowCopies), as the runtime runs it
//                 (since 2026-11-30 full and full-w2 run fusion.cu's two-rank path,
//                 spread_rows_of_two_ranks, one block a row)
//   copies-N      lean-full with each row taken by up to N blocks (as many as the grid has for
//                 every row) instead of one: every block of a row waits for the whole row, adds
//                 it up and takes its sum of squares itself, and stores only its own part of
//                 residualOut and out (the N blocks' sums are bit-identical, so no block meets
//                 another); N = 2, 4, 8
//
// each compiled with __launch_bounds__(threads, 1) and (threads, 2), at 512 and 256 threads a
// block, launched with programmatic dependent launch (and full without it). residualOut of every
// call is checked bit for bit against a host reference and between the GPUs, out (full) within
// 2^-7 relative and bit for bit between the GPUs.
//
//   nvcc -O3 -arch=sm_90 -cudart static -o fused-residency bench/probes/fused-residency.cu
//   ./fused-residency [--calls 50] [--samples 30]
// FUSED_PROBE_FILL_OUTPUTS=1 fills residualOut and out with 0xff bytes before each measurement, as
// gpucomm bench does before its checked and timed calls.
// fusion.cu and probe.h both define these two helpers: fusion.cu's are renamed.
#define ld_acquire_sys fusion_ld_acquire_sys
#define st_release_sys fusion_st_release_sys
#include "../../runtime/cuda/src/main/cuda/fusion.cu"
#undef ld_acquire_sys
#undef st_release_sys

#include "probe.h"
#include "fused-probe.h"

using bf16 = __nv_bfloat16;

enum Mode {
  FULL, NO_NORM, SUM_ONLY, PLAIN_WAIT, LEAN, LEAN_NO_SYNC, LEAN_NO_OUT, PLAIN_PAIRS, LEAN_PAIRS,
  FULL_W2, COPIES_2, COPIES_4, COPIES_8, FULL_W2_COPIES
};
static const char* const MODE_NAMES[] = {"full",      "no-norm",       "sum-only",
                                         "plain-wait", "lean-full",    "lean-warp-sum",
                                         "lean-no-out", "plain-pairs", "lean-pairs",
                                         "full-w2",   "copies-2",     "copies-4",
                                         "copies-8",  "full-w2-copies"};
constexpr int MODES = 14;

// The plain Lamport one-shot's sends: (destination, vector) pairs dealt to consecutive threads,
// two per thread with both loads before either store while they fit, and its refill.
__device__ __forceinline__ void pair_send_and_refill(const RowCall& c, const FusionPeers& peers,
                                                     const FusionLayout& layout,
                                                     const FusionControl* control, int rank,
                                                     int world, int slot, int previous,
                                                     long long vectors) {
  const long long slotStride = world * layout.rowCapacity;
  const long long slotOffset = layout.lamportOffset + slot * slotStride + rank * layout.rowCapacity;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const uint4* input = reinterpret_cast<const uint4*>(c.input);
  const long long sends = vectors * world;
  for (long long j = first; j < sends; j += 2 * stride) {
    const long long j2 = j + stride;
    const int s1 = (int)(j / vectors);
    const long long v1 = j - s1 * vectors;
    const uint4 x1 = lamport_clean<bf16>(input[v1]);
    int s2 = 0;
    long long v2 = 0;
    uint4 x2 = make_uint4(0, 0, 0, 0);
    if (j2 < sends) {
      s2 = (int)(j2 / vectors);
      v2 = j2 - s2 * vectors;
      x2 = lamport_clean<bf16>(input[v2]);
    }
    st_volatile_v4(reinterpret_cast<uint4*>(peers.base[(rank + s1) % world] + slotOffset) + v1, x1);
    if (j2 < sends) {
      st_volatile_v4(reinterpret_cast<uint4*>(peers.base[(rank + s2) % world] + slotOffset) + v2, x2);
    }
  }
  char* stale = peers.base[rank] + layout.lamportOffset + previous * slotStride;
  const long long staleVectors = control->lamportVectors[blockIdx.x][previous];
  const uint32_t s = Vec<bf16>::sentinel;
  const uint4 empty = make_uint4(s, s, s, s);
  for (long long j = first; j < staleVectors * world; j += stride) {
    const int r = (int)(j / staleVectors);
    st_volatile_v4(reinterpret_cast<uint4*>(stale + r * layout.rowCapacity) + (j - r * staleVectors), empty);
  }
}


// The rows of a call, each taken by `copies` blocks (at most MAX_COPIES, as many as the grid has
// for every row): block b takes part b % copies of row b / copies (+ the rows a pass of the grid
// leaves). Every copy waits for the whole row from both ranks, adds the residual and reduces the
// row's sum of squares over its block: the same floats in the same order in every copy, so the
// copies agree bit for bit without meeting. Each stores residualOut and out of its part only.
template <int MAX_COPIES>
__device__ __forceinline__ void row_copies(const RowCall& c, const char* own, long long rankStride) {
  constexpr int L = Vec<bf16>::lanes;
  constexpr int K = SPREAD_ROW_VECTORS;
  const long long rowBytes = (long long)c.hidden * sizeof(bf16);
  const int rowVectors = c.hidden / L;
  const int copies = (int)max(1LL, min((long long)MAX_COPIES, gridDim.x / c.tokens));
  const int rowsPerPass = gridDim.x / copies;
  if ((int)blockIdx.x >= rowsPerPass * copies) return;
  const int part = blockIdx.x % copies;
  const int partFirst = part * rowVectors / copies, partEnd = (part + 1) * rowVectors / copies;
  const int mine = row_vectors_of_thread(rowVectors);
  bool stores[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int v = threadIdx.x + k * blockDim.x;
    stores[k] = k < mine && v >= partFirst && v < partEnd;
  }
  for (long long row = blockIdx.x / copies; row < c.tokens; row += rowsPerPass) {
    const uint4* residualIn = reinterpret_cast<const uint4*>(c.residualIn + row * rowBytes);
    uint4 residualVectors[K], gammaVectors[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (k < mine) residualVectors[k] = residualIn[threadIdx.x + k * blockDim.x];
      if (stores[k]) gammaVectors[k] = reinterpret_cast<const uint4*>(c.gamma)[threadIdx.x + k * blockDim.x];
    }
    uint4 vals[2][K];
    lamport_wait<bf16, 2, K>(own + row * rowBytes, rankStride, 0, vals, 2, mine);
    uint4* residualOut = reinterpret_cast<uint4*>(c.residualOut + row * rowBytes);
    float acc[K][L];
    float squares = 0.f;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (k < mine) {
        add_vector<bf16>(acc[k], vals[0][k], true, false);
        add_vector<bf16>(acc[k], vals[1][k], false, false);
        float r[L];
        Vec<bf16>::unpack(residualVectors[k], r);
#pragma unroll
        for (int i = 0; i < L; ++i) acc[k][i] += r[i];
        const uint4 packed = Vec<bf16>::pack(acc[k]);
        if (stores[k]) residualOut[threadIdx.x + k * blockDim.x] = packed;
        Vec<bf16>::unpack(packed, acc[k]);
#pragma unroll
        for (int i = 0; i < L; ++i) squares += acc[k][i] * acc[k][i];
      }
    }
    const float inverseRms = rsqrtf(block_sum(squares) / c.hidden + c.eps);
    char* out = c.output + row * rowBytes;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (stores[k]) {
        store_normalized<bf16>(c, out, threadIdx.x + k * blockDim.x, acc[k], gammaVectors[k],
                               inverseRms);
      }
    }
  }
}

// fused_lamport_spread with the work after the wait cut down to `mode`.
template <int MODE>
__device__ void variant(const RowCall& c, const FusionPeers& peers, const FusionLayout& layout,
                        FusionControl* control, int rank, int world) {
  if (MODE == FULL) {
    fused_lamport_spread<bf16>(c, peers, layout, control, rank, world);
    return;
  }
  if (MODE == FULL_W2 || MODE == FULL_W2_COPIES) {  // the world size known when compiling
    fused_lamport_spread<bf16>(c, peers, layout, control, rank, 2);
    return;
  }
  wait_for_previous_grid();
  const uint32_t epoch = control->lamportEpoch[blockIdx.x] + 1;
  const int slot = epoch % 3;
  const int previous = (epoch + 2) % 3;
  const long long rowBytes = (long long)c.hidden * sizeof(bf16);
  const long long slotStride = world * layout.rowCapacity;
  const long long vectors = c.tokens * rowBytes / 16;
  if (MODE == PLAIN_PAIRS || MODE == LEAN_PAIRS) {
    pair_send_and_refill(c, peers, layout, control, rank, world, slot, previous, vectors);
  } else {
    lamport_send_and_refill<bf16>(c, peers, layout, control, rank, world, slot, previous, vectors);
  }
  const char* own = peers.base[rank] + layout.lamportOffset + slot * slotStride;
  constexpr int L = Vec<bf16>::lanes;
  if (MODE == COPIES_2 || MODE == COPIES_4 || MODE == COPIES_8) {
    constexpr int MAX_COPIES = MODE == COPIES_2 ? 2 : MODE == COPIES_4 ? 4 : 8;
    row_copies<MAX_COPIES>(c, own, layout.rowCapacity);
  } else if (MODE == PLAIN_WAIT || MODE == PLAIN_PAIRS) {
    for (long long v = blockIdx.x * (long long)blockDim.x + threadIdx.x; v < vectors;
         v += (long long)gridDim.x * blockDim.x) {
      uint4 vals[2][1];
      lamport_wait<bf16, 2, 1>(own + (v - threadIdx.x) * 16, layout.rowCapacity, 0, vals, world, 1);
      float acc[L];
      add_vector<bf16>(acc, vals[0][0], true, false);
      add_vector<bf16>(acc, vals[1][0], false, false);
      reinterpret_cast<uint4*>(c.residualOut)[v] = Vec<bf16>::pack(acc);
    }
  } else {
    constexpr int K = SPREAD_ROW_VECTORS;
    for (long long row = blockIdx.x; row < c.tokens; row += gridDim.x) {
      const int mine = row_vectors_of_thread(c.hidden / L);
      const uint4* residualIn = reinterpret_cast<const uint4*>(c.residualIn + row * rowBytes);
      constexpr bool residual = MODE != SUM_ONLY;
      constexpr bool norm = MODE == LEAN || MODE == LEAN_NO_SYNC || MODE == LEAN_NO_OUT || MODE == LEAN_PAIRS;
      uint4 residualVectors[K], gammaVectors[K];
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (residual && k < mine) residualVectors[k] = residualIn[threadIdx.x + k * blockDim.x];
        if (norm && k < mine) gammaVectors[k] = reinterpret_cast<const uint4*>(c.gamma)[threadIdx.x + k * blockDim.x];
      }
      uint4 vals[2][K];
      lamport_wait<bf16, 2, K>(own + row * rowBytes, layout.rowCapacity, 0, vals, world, mine);
      uint4* residualOut = reinterpret_cast<uint4*>(c.residualOut + row * rowBytes);
      float acc[K][L];
      float squares = 0.f;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (k < mine) {
          add_vector<bf16>(acc[k], vals[0][k], true, false);
          add_vector<bf16>(acc[k], vals[1][k], false, false);
          if (residual) {
            float r[L];
            Vec<bf16>::unpack(residualVectors[k], r);
#pragma unroll
            for (int i = 0; i < L; ++i) acc[k][i] += r[i];
          }
          const uint4 packed = Vec<bf16>::pack(acc[k]);
          residualOut[threadIdx.x + k * blockDim.x] = packed;
          if (norm) {
            Vec<bf16>::unpack(packed, acc[k]);
#pragma unroll
            for (int i = 0; i < L; ++i) squares += acc[k][i] * acc[k][i];
          }
        }
      }
      if (norm) {
        if (MODE == LEAN_NO_SYNC) {
#pragma unroll
          for (int offset = 16; offset > 0; offset >>= 1)
            squares += __shfl_xor_sync(0xffffffffu, squares, offset);
        } else {
          squares = block_sum(squares);
        }
        const float inverseRms = rsqrtf(squares / c.hidden + c.eps);
        char* out = c.output + row * rowBytes;
        if (MODE == LEAN_NO_OUT) {
          if (threadIdx.x == 0) reinterpret_cast<float*>(out)[0] = inverseRms;
        } else {
#pragma unroll
          for (int k = 0; k < K; ++k) {
            if (k < mine) {
              store_normalized<bf16>(c, out, threadIdx.x + k * blockDim.x, acc[k], gammaVectors[k],
                                     inverseRms);
            }
          }
        }
      }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    control->lamportRows[blockIdx.x][slot] = c.tokens;
    control->lamportVectors[blockIdx.x][slot] = vectors;
    control->lamportEpoch[blockIdx.x] = epoch;
  }
}

#define PROBE_KERNEL(MODE, THREADS, MIN_BLOCKS)                                                  \
  __global__ void __launch_bounds__(THREADS, MIN_BLOCKS)                                        \
      probe_##MODE##_##THREADS##_##MIN_BLOCKS(RowCall c, FusionPeers peers, FusionLayout layout, \
                                              FusionControl* control, int rank, int world) {     \
    variant<MODE>(c, peers, layout, control, rank, world);                                       \
  }
// The same with the structures left in parameter space (__grid_constant__), as the runtime's
// entries take them since 2026-11-30: the kernels above copy them to every thread's stack first,
// since the sends index peers.base at run time.
#define PROBE_KERNEL_GRID_CONSTANT(MODE)                                                           \
  __global__ void __launch_bounds__(512, 1) probe_##MODE##_constant(                              \
      const __grid_constant__ RowCall c, const __grid_constant__ FusionPeers peers,               \
      const __grid_constant__ FusionLayout layout, FusionControl* control, int rank, int world) { \
    variant<MODE>(c, peers, layout, control, rank, world);                                         \
  }
#define PROBE_KERNELS(MODE)        \
  PROBE_KERNEL(MODE, 512, 1)       \
  PROBE_KERNEL(MODE, 512, 2)       \
  PROBE_KERNEL(MODE, 256, 1)       \
  PROBE_KERNEL(MODE, 256, 2)       \
  PROBE_KERNEL_GRID_CONSTANT(MODE)
PROBE_KERNELS(FULL)
PROBE_KERNELS(NO_NORM)
PROBE_KERNELS(SUM_ONLY)
PROBE_KERNELS(PLAIN_WAIT)
PROBE_KERNELS(LEAN)
PROBE_KERNELS(LEAN_NO_SYNC)
PROBE_KERNELS(LEAN_NO_OUT)
PROBE_KERNELS(PLAIN_PAIRS)
PROBE_KERNELS(LEAN_PAIRS)
PROBE_KERNELS(FULL_W2)
PROBE_KERNELS(COPIES_2)
PROBE_KERNELS(COPIES_4)
PROBE_KERNELS(COPIES_8)
PROBE_KERNELS(FULL_W2_COPIES)

using Kernel = void (*)(RowCall, FusionPeers, FusionLayout, FusionControl*, int, int);
#define KERNEL_ROW(MODE)                                                                        \
  {probe_##MODE##_512_1, probe_##MODE##_512_2, probe_##MODE##_256_1, probe_##MODE##_256_2, \
   probe_##MODE##_constant}
// [mode][512/1, 512/2, 256/1, 256/2, 512/1 with __grid_constant__]
static const Kernel KERNELS[MODES][5] = {
    KERNEL_ROW(FULL), KERNEL_ROW(NO_NORM),      KERNEL_ROW(SUM_ONLY),   KERNEL_ROW(PLAIN_WAIT),
    KERNEL_ROW(LEAN), KERNEL_ROW(LEAN_NO_SYNC), KERNEL_ROW(LEAN_NO_OUT),
    KERNEL_ROW(PLAIN_PAIRS), KERNEL_ROW(LEAN_PAIRS), KERNEL_ROW(FULL_W2),
    KERNEL_ROW(COPIES_2), KERNEL_ROW(COPIES_4), KERNEL_ROW(COPIES_8), KERNEL_ROW(FULL_W2_COPIES)};

constexpr int HIDDEN = 8192;
constexpr int MAX_TOKENS = 256;
constexpr long long ROW_BYTES = HIDDEN * 2;
constexpr long long CAPACITY = MAX_TOKENS * ROW_BYTES;  // one rank's rows in a slot

struct Config {
  int mode, threads, minBlocks;
  bool programmatic;
  bool gridConstant = false;
};

static int kernel_column(const Config& k) {
  if (k.gridConstant) return 4;
  return (k.threads == 256 ? 2 : 0) + (k.minBlocks == 2 ? 1 : 0);
}

static void launch(const Config& k, FusedGpu& gpu, const FusionPeers& peers, const FusionLayout& layout,
                   int rank, int blocks, long long tokens) {
  RowCall c{gpu.input, gpu.residualIn, gpu.gamma, gpu.residualOut, gpu.output, tokens, HIDDEN,
            1e-6f, 0.f, 1, 1};
  // FusedRowCopies' automatic rule on two ranks
  if (k.mode == FULL_W2_COPIES && tokens >= 8 && 2 * tokens <= blocks) c.rowCopies = 2;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(k.threads);
  config.stream = gpu.stream;
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = k.programmatic ? 1 : 0;
  const Kernel kernel = KERNELS[k.mode][kernel_column(k)];
  CHECK(cudaLaunchKernelEx(&config, kernel, c, peers, layout, gpu.control, rank, 2));
}

// What variant `mode` writes: residualOut without the residual for the sum-only ones, out only for
// the full pattern.
static FusedExpectation expectation(int mode) {
  const bool sumOnly = mode == SUM_ONLY || mode == PLAIN_WAIT || mode == PLAIN_PAIRS;
  const bool normalized = mode == FULL || mode == FULL_W2 || mode == LEAN || mode == LEAN_PAIRS ||
                          mode == COPIES_2 || mode == COPIES_4 || mode == COPIES_8 ||
                          mode == FULL_W2_COPIES;
  return {!sumOnly, normalized, false};
}

int main(int argc, char** argv) {
  const ProbeOptions options = parse_probe_options("fused-residency", argc, argv);
  FusionPeers peers = {};
  const FusionLayout layout = lamport_oneshot_layout(CAPACITY);
  const long long area = lamport_oneshot_area_bytes(CAPACITY);
  std::vector<FusedGpu> gpus = open_fused_gpus(peers, CAPACITY, ROW_BYTES, area, sizeof(FusionControl));
  reset_fused_areas(gpus, area, sizeof(FusionControl));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = std::min(prop.multiProcessorCount, FUSION_MAX_BLOCKS);
  printf("# %s x 2, %d blocks: fused all-reduce + residual + RMSNorm (hidden %d bf16), %d calls "
         "per sample, median of %d, us per call\n",
         prop.name, blocks, HIDDEN, options.calls, options.samples);
  for (int mode = 0; mode < MODES; ++mode) {
    for (int column = 0; column < 5; ++column) {
      const Config k{mode, column < 2 || column == 4 ? 512 : 256, column % 2 == 1 ? 2 : 1, true,
                     column == 4};
      cudaFuncAttributes attributes;
      CHECK(cudaFuncGetAttributes(&attributes, KERNELS[mode][column]));
      printf("%-10s threads=%d minBlocks=%d params=%s registers=%d local=%zuB\n", MODE_NAMES[mode],
             k.threads, k.minBlocks, k.gridConstant ? "constant" : "copied", attributes.numRegs,
             attributes.localSizeBytes);
    }
  }
  printf("%-10s %7s %9s %5s %8s %8s %8s %8s  %s\n", "variant", "threads", "minBlocks", "pdl",
         "params", "tokens", "graph", "eager", "check");
  std::vector<Config> configs;
  for (int mode = 0; mode < MODES; ++mode) {
    for (int threads : {512, 256}) configs.push_back({mode, threads, 1, true});
    configs.push_back({mode, 512, 1, true, true});
  }
  configs.push_back({FULL, 512, 2, true});
  configs.push_back({FULL, 512, 1, false});
  const std::vector<cudaStream_t> streams{gpus[0].stream, gpus[1].stream};
  int failures = 0;
  const char* fillText = getenv("FUSED_PROBE_FILL_OUTPUTS");
  const bool fillOutputs = fillText != nullptr && strcmp(fillText, "1") == 0;
  for (long long tokens : {1, 4, 8, 16, 32, 64, 128}) {
    for (const Config& k : configs) {
      if (k.threads == 256 && HIDDEN / 8 > SPREAD_ROW_VECTORS * 256) continue;
      auto call = [&](int g) { launch(k, gpus[g], peers, layout, g, blocks, tokens); };
      if (fillOutputs) fill_fused_outputs(gpus, CAPACITY);
      const double graph = median_us_per_call(streams, true, options.calls, options.samples, call);
      const double eager = median_us_per_call(streams, false, options.calls, options.samples, call);
      for (int g = 0; g < 2; ++g) {
        CHECK(cudaSetDevice(g));
        CHECK(cudaDeviceSynchronize());
      }
      const bool ok = check_fused_outputs(gpus, tokens, HIDDEN, expectation(k.mode));
      failures += ok ? 0 : 1;
      printf("%-10s %7d %9d %5s %8s %8lld %8.2f %8.2f  %s\n", MODE_NAMES[k.mode], k.threads,
             k.minBlocks, k.programmatic ? "on" : "off", k.gridConstant ? "constant" : "copied",
             tokens, graph, eager,
             ok ? "checked" : "MISMATCH");
      fflush(stdout);
    }
  }
  return failures == 0 ? 0 : 3;
}
