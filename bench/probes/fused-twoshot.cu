// Where the fused two-shot's extra microseconds go: gpucomm's fused_lamport2 (all-reduce +
// residual + RMSNorm, flag-free two-shot) on two GPUs of one process, against versions of it with
// parts taken away, down to the plain Lamport two-shot's work. At 4 MiB (256 tokens x 8192 bf16)
// the fused two-shot takes about 20 us where the plain one takes 15.
//
//   full          fused_lamport2 itself (the device function the runtime launches, world 2)
//   no-out        the same, but the norm phase stores one word per row instead of out: the cost
//                 of the out stores
//   copy-norm     the reduce phase as full; the norm phase replaced by a copy of the gathered
//                 residualOut into its buffer, spread over the grid: the cost of a row per block,
//                 its block reduction and out
//   no-residual   full without the residual read and add in the reduce phase
//   plain         no-residual with copy-norm: the plain Lamport two-shot's work in this kernel's
//                 layout
//   mine          full written out here (as the variants are), to compare with full
//   mine-contig   mine with the grid-wide loops (scatter, refill, reduce) over consecutive vectors
//                 per block, as the plain Lamport two-shot's, instead of 32-vector runs dealt to
//                 the blocks in turn (spread_index)
//   plain-contig  plain with those loops
//   own-direct    mine, but the reduce phase stores this rank's own slice straight into
//                 residualOut (pushing it to the peer only) and each warp counts its finished run
//                 in a per-row counter, which the row's block polls instead of the gather slots
//                 (whole rows per slice: world 2, an even token count)
//   halves        mine, but each half of a block normalizes rows of its own (a named barrier per
//                 half for the row's sum), so that at 256 tokens every row has half a block while
//                 the scatter and reduce keep blocks of 512 threads (fixed grid only)
//   own-rows      slices of whole rows (world 2, an even token count), and a rank's own rows never
//                 pass through its own slots: the scatter sends the peer's slice only; the block of
//                 an own row reads the rank's copy from the input, waits for the peer's, adds the
//                 residual, pushes the finished row to the peer and normalizes it from registers;
//                 the block of a peer row waits for it in the gather slots, as full's does. Only
//                 the peer's entries of the slots are refilled (the probe empties the slots before
//                 every variant, so no stale own entry is ever read)
//   runtime-own   fused_lamport2_own itself, the runtime's kernel of own-rows
//
// Every variant launches with programmatic dependent launch in two grid shapes: one block of 512
// threads per multiprocessor (at most 132), the runtime's fixed grid, and two blocks of 256
// threads per multiprocessor, its wide grid, where at 256 tokens every row has a block of its own
// (both shapes keep the whole grid resident, as the Lamport waits need). The last call of each
// measurement is checked: residualOut bit for bit against a host reference on both GPUs (with the
// residual where the variant adds it), out (full, mine, own-direct, halves) within 2^-7 relative
// and bit for bit between the GPUs.
//
// Its kernels take the structures by value, not as the runtime's __grid_constant__ ones (since
// 2026-11-30): each thread first copies them to its stack (0.13-0.47 us at 1-4 rows in
// fused-residency.cu's one-shot).
//
//   nvcc -O3 -arch=sm_90 -cudart static -o fused-twoshot bench/probes/fused-twoshot.cu
//   ./fused-twoshot [--calls 50] [--samples 30]
// FUSED_TWOSHOT_MODES=full,own-rows,... runs only those variants; FUSED_PROBE_FILL_OUTPUTS=1
// fills residualOut and out with 0xff bytes before each variant, as gpucomm bench does before its
// checked and timed calls.
// fusion.cu and probe.h both define these two helpers: fusion.cu's are renamed.
#define FUSION_WORLD 2
#define ld_acquire_sys fusion_ld_acquire_sys
#define st_release_sys fusion_st_release_sys
#include "../../runtime/cuda/src/main/cuda/fusion.cu"
#undef ld_acquire_sys
#undef st_release_sys

#include <cmath>

#include "probe.h"
#include "fused-probe.h"

using bf16 = __nv_bfloat16;

enum Mode {
  FULL, NO_OUT, COPY_NORM, NO_RESIDUAL, PLAIN, MINE, MINE_CONTIG, PLAIN_CONTIG, OWN_DIRECT, HALVES,
  OWN_ROWS, RUNTIME_OWN
};
static const char* const MODE_NAMES[] = {"full",  "no-out", "copy-norm",   "no-residual",
                                         "plain", "mine",   "mine-contig", "plain-contig",
                                         "own-direct", "halves", "own-rows",
                                         "runtime-own"};
constexpr int MODES = 12;

constexpr long long CONTROL_BYTES = 16384;  // as the runtime's
static_assert(sizeof(FusionControl) <= CONTROL_BYTES, "row counters follow FusionControl");

// own-direct's per-row counters of finished 32-vector runs, after FusionControl in its allocation.
__device__ __forceinline__ uint32_t* row_counters(FusionControl* control) {
  return reinterpret_cast<uint32_t*>(reinterpret_cast<char*>(control) + CONTROL_BYTES);
}

// own-rows (see the header): world 2, bf16, rows in registers, slices of whole rows.
__device__ void own_rows(RowCall c, FusionPeers peers, FusionLayout layout, FusionControl* control,
                         int rank) {
  constexpr int L = Vec<bf16>::lanes;
  constexpr int K = SPREAD_ROW_VECTORS;
  constexpr int world = 2;
  wait_for_previous_grid();
  const int rowVectors = c.hidden / L;
  const long long vectors = c.tokens * rowVectors;
  const long long part = vectors / world;
  const long long longest = vectors - part;
  const uint32_t epoch = control->lamport2Epoch[blockIdx.x] + 1;
  const int slot = epoch % 3;
  const int previous = (epoch + 2) % 3;
  const long long previousLongest = control->lamport2Vectors[blockIdx.x][previous];
  const long long first = spread_index();
  const long long stride = (long long)gridDim.x * blockDim.x;
  char* self = peers.base[rank];
  const int peer = 1 - rank;
  const long long myStart = rank * part;
  const long long myLength = rank == world - 1 ? vectors - myStart : part;
  const long long peerStart = peer * part;
  const long long peerLength = peer == world - 1 ? vectors - peerStart : part;

  // Scatter the peer's slice only, a few loads in flight before the stores.
  constexpr int BATCH = 4;
  const uint4* input = reinterpret_cast<const uint4*>(c.input);
  uint4* scatterAtPeer = slice_area(peers.base[peer], layout, world, 0, slot, rank);
  for (long long base = first; base < peerLength; base += BATCH * stride) {
    uint4 x[BATCH];
#pragma unroll
    for (int b = 0; b < BATCH; ++b) {
      if (base + b * stride < peerLength) x[b] = lamport_clean<bf16>(input[peerStart + base + b * stride]);
    }
#pragma unroll
    for (int b = 0; b < BATCH; ++b) {
      if (base + b * stride < peerLength) st_volatile_v4(scatterAtPeer + base + b * stride, x[b]);
    }
  }
  // Refill the previous call's entries of the peer, the only ones written.
  const uint32_t s = Vec<bf16>::sentinel;
  const uint4 empty = make_uint4(s, s, s, s);
  for (int area = 0; area < 2; ++area) {
    uint4* stale = slice_area(self, layout, world, area, previous, peer);
    for (long long i = first; i < previousLongest; i += stride) st_volatile_v4(stale + i, empty);
  }

  const uint4* scattered = slice_area(self, layout, world, 0, slot, peer);
  const uint4* gathered = slice_area(self, layout, world, 1, slot, peer);
  uint4* gatherAtPeer = slice_area(peers.base[peer], layout, world, 1, slot, rank);
  const uint4* residualIn = reinterpret_cast<const uint4*>(c.residualIn);
  for (long long row = blockIdx.x; row < c.tokens; row += gridDim.x) {
    const long long rowStart = row * rowVectors;
    const int mine = row_vectors_of_thread(rowVectors);
    uint4 gammaVectors[K];
    load_gamma<K>(c, gammaVectors, mine);
    float residual[K][L];
    uint4 vals[1][K];
    if (rowStart >= myStart && rowStart < myStart + myLength) {
      const long long local = rowStart - myStart;
      uint4 own[K], residualVectors[K];
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (k < mine) {
          own[k] = lamport_clean<bf16>(input[rowStart + threadIdx.x + k * blockDim.x]);
          residualVectors[k] = residualIn[rowStart + threadIdx.x + k * blockDim.x];
        }
      }
      lamport_wait<bf16, 1, K>(reinterpret_cast<const char*>(scattered + local), 0, 0, vals, 1, mine);
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (k < mine) {
          float acc[L], r[L];
          add_vector<bf16>(acc, rank == 0 ? own[k] : vals[0][k], true, false);
          add_vector<bf16>(acc, rank == 0 ? vals[0][k] : own[k], false, !c.fp32Accumulate);
          Vec<bf16>::unpack(residualVectors[k], r);
#pragma unroll
          for (int l = 0; l < L; ++l) acc[l] += r[l];
          const uint4 finished = lamport_clean<bf16>(Vec<bf16>::pack(acc));
          st_volatile_v4(gatherAtPeer + local + threadIdx.x + k * blockDim.x, finished);
          Vec<bf16>::unpack(finished, residual[k]);
        }
      }
    } else {
      lamport_wait<bf16, 1, K>(reinterpret_cast<const char*>(gathered + (rowStart - peerStart)), 0, 0,
                               vals, 1, mine);
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (k < mine) Vec<bf16>::unpack(vals[0][k], residual[k]);
      }
    }
    finish_row_in_registers<bf16, K>(c, row, residual, gammaVectors, mine);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    control->lamport2Vectors[blockIdx.x][slot] = longest;
    control->lamport2Epoch[blockIdx.x] = epoch;
  }
}

// fused_lamport2 (world 2, bf16, rows in registers) with parts taken away by MODE.
template <int MODE>
__device__ void variant(RowCall c, FusionPeers peers, FusionLayout layout, FusionControl* control,
                        int rank, int runtimeWorld) {
  if (MODE == FULL) {
    fused_lamport2<bf16>(c, peers, layout, control, rank, fusion_world(runtimeWorld));
    return;
  }
  if (MODE == OWN_ROWS) {
    own_rows(c, peers, layout, control, rank);
    return;
  }
  if (MODE == RUNTIME_OWN) {
    fused_lamport2_own<bf16>(c, peers, layout, control, rank, fusion_world(runtimeWorld));
    return;
  }
  constexpr int L = Vec<bf16>::lanes;
  constexpr int K = SPREAD_ROW_VECTORS;
  constexpr int world = 2;
  constexpr bool addResidual = MODE != NO_RESIDUAL && MODE != PLAIN && MODE != PLAIN_CONTIG;
  constexpr bool copyNorm = MODE == COPY_NORM || MODE == PLAIN || MODE == PLAIN_CONTIG;
  constexpr bool contiguous = MODE == MINE_CONTIG || MODE == PLAIN_CONTIG;
  wait_for_previous_grid();
  const int rowVectors = c.hidden / L;
  const long long vectors = c.tokens * rowVectors;
  const long long part = vectors / world;
  const long long longest = vectors - (world - 1) * part;
  const uint32_t epoch = control->lamport2Epoch[blockIdx.x] + 1;
  const int slot = epoch % 3;
  const int previous = (epoch + 2) % 3;
  const long long previousLongest = control->lamport2Vectors[blockIdx.x][previous];
  const long long first =
      contiguous ? (long long)blockIdx.x * blockDim.x + threadIdx.x : spread_index();
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long sliceVectors = layout.sliceStride / 16;
  char* self = peers.base[rank];

  constexpr int BATCH = 4;
  const uint4* input = reinterpret_cast<const uint4*>(c.input);
  const long long shift = rank * part;
  for (long long base = first; base < vectors; base += BATCH * stride) {
    uint4 x[BATCH];
    long long v[BATCH];
#pragma unroll
    for (int b = 0; b < BATCH; ++b) {
      const long long j = base + b * stride;
      v[b] = j + shift < vectors ? j + shift : j + shift - vectors;
      if (j < vectors) x[b] = lamport_clean<bf16>(input[v[b]]);
    }
#pragma unroll
    for (int b = 0; b < BATCH; ++b) {
      if (base + b * stride < vectors) {
        const int owner = slice_owner(v[b], part, world);
        st_volatile_v4(slice_area(peers.base[owner], layout, world, 0, slot, rank) + (v[b] - owner * part),
                       x[b]);
      }
    }
  }
  const uint32_t s = Vec<bf16>::sentinel;
  const uint4 empty = make_uint4(s, s, s, s);
  for (int area = 0; area < 2; ++area) {
    uint4* stale = slice_area(self, layout, world, area, previous, 0);
    for (int r = 0; r < world; ++r) {
      for (long long i = first; i < previousLongest; i += stride) {
        st_volatile_v4(stale + r * sliceVectors + i, empty);
      }
    }
  }

  const long long myStart = rank * part;
  const long long myLength = rank == world - 1 ? vectors - myStart : part;
  const uint4* scattered = slice_area(self, layout, world, 0, slot, 0);
  const uint4* residualIn = reinterpret_cast<const uint4*>(c.residualIn);
  for (long long i = first; i < myLength; i += stride) {
    uint4 residualVector = make_uint4(0, 0, 0, 0);
    if (addResidual) residualVector = residualIn[myStart + i];
    uint4 vals[FUSION_MAX_RANKS];
    wait_all_ranks<bf16>(scattered + i, sliceVectors, world, vals);
    float acc[L];
    add_vector<bf16>(acc, vals[0], true, false);
    add_vector<bf16>(acc, vals[1], false, false);
    if (addResidual) {
      float residual[L];
      Vec<bf16>::unpack(residualVector, residual);
#pragma unroll
      for (int l = 0; l < L; ++l) acc[l] += residual[l];
    }
    const uint4 finished = lamport_clean<bf16>(Vec<bf16>::pack(acc));
    if (MODE == OWN_DIRECT) {
      st_volatile_v4(slice_area(peers.base[1 - rank], layout, world, 1, slot, rank) + i, finished);
      reinterpret_cast<uint4*>(c.residualOut)[myStart + i] = finished;
      __syncwarp();
      if (threadIdx.x % 32 == 0) {
        __threadfence();
        atomicAdd(row_counters(control) + (myStart + i) / rowVectors, 1u);
      }
      continue;
    }
    for (int p = 0; p < world; ++p) {
      const int peer = (rank + p) % world;
      st_volatile_v4(slice_area(peers.base[peer], layout, world, 1, slot, rank) + i, finished);
    }
  }

  const uint4* gathered = slice_area(self, layout, world, 1, slot, 0);
  auto gatheredVector = [&](long long g) {
    const int owner = slice_owner(g, part, world);
    return gathered + owner * sliceVectors + (g - owner * part);
  };
  if (copyNorm) {
    // the plain two-shot's last phase: every gathered vector copied out, spread over the grid
    for (long long g = first; g < vectors; g += stride) {
      uint4 x;
      do {
        x = ld_volatile_v4(gatheredVector(g));
      } while (lamport_empty<bf16>(x));
      reinterpret_cast<uint4*>(c.residualOut)[g] = x;
    }
  } else if (MODE == HALVES) {
    // Two teams of half the block each take rows blockIdx.x + team * gridDim.x, then every
    // 2 * gridDim.x-th; a team's sum of squares meets at its own named barrier (1 + team).
    __shared__ float partial[FUSION_THREADS / 32];
    const int teamThreads = blockDim.x / 2;
    const int team = threadIdx.x / teamThreads;
    const int t = threadIdx.x % teamThreads;
    const int mine = t < rowVectors ? (rowVectors - 1 - t) / teamThreads + 1 : 0;
    uint4 gammaVectors[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (k < mine) gammaVectors[k] = reinterpret_cast<const uint4*>(c.gamma)[t + k * teamThreads];
    }
    for (long long row = blockIdx.x + team * gridDim.x; row < c.tokens; row += 2 * gridDim.x) {
      const long long rowStart = row * rowVectors;
      uint4 vals[K];
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (k < mine) vals[k] = ld_volatile_v4(gatheredVector(rowStart + t + k * teamThreads));
      }
      for (;;) {
        bool pending = false;
#pragma unroll
        for (int k = 0; k < K; ++k) {
          if (k < mine && lamport_empty<bf16>(vals[k])) {
            vals[k] = ld_volatile_v4(gatheredVector(rowStart + t + k * teamThreads));
            pending = pending || lamport_empty<bf16>(vals[k]);
          }
        }
        if (!pending) break;
      }
      float residual[K][L];
      float squares = 0.f;
      uint4* residualOut = reinterpret_cast<uint4*>(c.residualOut) + rowStart;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (k < mine) {
          Vec<bf16>::unpack(vals[k], residual[k]);
#pragma unroll
          for (int i = 0; i < L; ++i) squares += residual[k][i] * residual[k][i];
          residualOut[t + k * teamThreads] = vals[k];
        }
      }
#pragma unroll
      for (int offset = 16; offset > 0; offset >>= 1) {
        squares += __shfl_xor_sync(0xffffffffu, squares, offset);
      }
      const int warps = teamThreads / 32;
      // the team's previous row has been read out of `partial`
      asm volatile("bar.sync %0, %1;" ::"r"(1 + team), "r"(teamThreads) : "memory");
      if (t % 32 == 0) partial[team * warps + t / 32] = squares;
      asm volatile("bar.sync %0, %1;" ::"r"(1 + team), "r"(teamThreads) : "memory");
      float total = 0.f;
      for (int w = 0; w < warps; ++w) total += partial[team * warps + w];
      const float inverseRms = rsqrtf(total / c.hidden + c.eps);
      char* out = c.output + row * c.hidden * 2;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (k < mine) {
          store_normalized<bf16>(c, out, t + k * teamThreads, residual[k], gammaVectors[k],
                                 inverseRms);
        }
      }
    }
  } else {
    for (long long row = blockIdx.x; row < c.tokens; row += gridDim.x) {
      const long long rowStart = row * rowVectors;
      const int mine = row_vectors_of_thread(rowVectors);
      uint4 gammaVectors[K];
      load_gamma<K>(c, gammaVectors, mine);
      uint4 vals[K];
      const bool own = MODE == OWN_DIRECT && rowStart >= myStart && rowStart < myStart + myLength;
      if (own) {
        // wait until every run of the row is counted, then read it back from residualOut
        uint32_t* counter = row_counters(control) + row;
        if (threadIdx.x == 0) {
          while (ld_acquire_sys(counter) < (uint32_t)(rowVectors / 32)) {
          }
          *counter = 0;  // the next call starts after this grid completes
        }
        __syncthreads();
        const uint4* residualRow = reinterpret_cast<const uint4*>(c.residualOut) + rowStart;
#pragma unroll
        for (int k = 0; k < K; ++k) {
          if (k < mine) vals[k] = ld_volatile_v4(residualRow + threadIdx.x + k * blockDim.x);
        }
        float residual[K][L];
        float squares = 0.f;
#pragma unroll
        for (int k = 0; k < K; ++k) {
          if (k < mine) {
            Vec<bf16>::unpack(vals[k], residual[k]);
#pragma unroll
            for (int i = 0; i < L; ++i) squares += residual[k][i] * residual[k][i];
          }
        }
        const float inverseRms = rsqrtf(block_sum(squares) / c.hidden + c.eps);
        char* out = c.output + row * c.hidden * 2;
#pragma unroll
        for (int k = 0; k < K; ++k) {
          if (k < mine) {
            store_normalized<bf16>(c, out, threadIdx.x + k * blockDim.x, residual[k], gammaVectors[k],
                                   inverseRms);
          }
        }
        continue;
      }
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (k < mine) vals[k] = ld_volatile_v4(gatheredVector(rowStart + threadIdx.x + k * blockDim.x));
      }
      for (;;) {
        bool pending = false;
#pragma unroll
        for (int k = 0; k < K; ++k) {
          if (k < mine && lamport_empty<bf16>(vals[k])) {
            vals[k] = ld_volatile_v4(gatheredVector(rowStart + threadIdx.x + k * blockDim.x));
            pending = pending || lamport_empty<bf16>(vals[k]);
          }
        }
        if (!pending) break;
      }
      float residual[K][L];
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (k < mine) Vec<bf16>::unpack(vals[k], residual[k]);
      }
      if (MODE == NO_OUT) {
        uint4* residualOut = reinterpret_cast<uint4*>(c.residualOut) + rowStart;
        float squares = 0.f;
#pragma unroll
        for (int k = 0; k < K; ++k) {
          if (k < mine) {
#pragma unroll
            for (int i = 0; i < L; ++i) squares += residual[k][i] * residual[k][i];
            residualOut[threadIdx.x + k * blockDim.x] = vals[k];
          }
        }
        const float inverseRms = rsqrtf(block_sum(squares) / c.hidden + c.eps);
        if (threadIdx.x == 0) reinterpret_cast<float*>(c.output + row * c.hidden * 2)[0] = inverseRms;
      } else {
        finish_row_in_registers<bf16, K>(c, row, residual, gammaVectors, mine);
      }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    control->lamport2Vectors[blockIdx.x][slot] = longest;
    control->lamport2Epoch[blockIdx.x] = epoch;
  }
}

#define PROBE_KERNEL(MODE)                                                                       \
  __global__ void __launch_bounds__(FUSION_THREADS, 1)                                           \
      probe_##MODE(RowCall c, FusionPeers peers, FusionLayout layout, FusionControl* control,    \
                   int rank, int world) {                                                        \
    variant<MODE>(c, peers, layout, control, rank, world);                                       \
  }
PROBE_KERNEL(FULL)
PROBE_KERNEL(NO_OUT)
PROBE_KERNEL(COPY_NORM)
PROBE_KERNEL(NO_RESIDUAL)
PROBE_KERNEL(PLAIN)
PROBE_KERNEL(MINE)
PROBE_KERNEL(MINE_CONTIG)
PROBE_KERNEL(PLAIN_CONTIG)
PROBE_KERNEL(OWN_DIRECT)
PROBE_KERNEL(HALVES)
PROBE_KERNEL(OWN_ROWS)
PROBE_KERNEL(RUNTIME_OWN)

using Kernel = void (*)(RowCall, FusionPeers, FusionLayout, FusionControl*, int, int);
static const Kernel KERNELS[MODES] = {probe_FULL,  probe_NO_OUT, probe_COPY_NORM,
                                      probe_NO_RESIDUAL, probe_PLAIN, probe_MINE,
                                      probe_MINE_CONTIG, probe_PLAIN_CONTIG, probe_OWN_DIRECT,
                                      probe_HALVES, probe_OWN_ROWS, probe_RUNTIME_OWN};

constexpr int HIDDEN = 8192;
constexpr int MAX_TOKENS = 256;
constexpr long long ROW_BYTES = HIDDEN * 2;
constexpr long long CAPACITY = MAX_TOKENS * ROW_BYTES;  // one rank's rows
// a slice of the largest call (half of it) plus the runtime layout's margin of 16 bytes a rank
constexpr long long SLICE_STRIDE = (CAPACITY / 2 + 32 + 255) / 256 * 256;

static void launch(int mode, FusedGpu& gpu, const FusionPeers& peers, const FusionLayout& layout,
                   int rank, int blocks, int threads, long long tokens) {
  RowCall c{gpu.input, gpu.residualIn, gpu.gamma, gpu.residualOut, gpu.output, tokens, HIDDEN,
            1e-6f, 0.f, 1};
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.stream = gpu.stream;
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&config, KERNELS[mode], c, peers, layout, gpu.control, rank, 2));
}

// What variant `mode` writes: residualOut without the residual for the plain ones, out for the
// whole pattern; a residualOut of -0.0 arrives through the gather as +0.0.
static FusedExpectation expectation(int mode) {
  const bool residualAdded = mode != NO_RESIDUAL && mode != PLAIN && mode != PLAIN_CONTIG;
  const bool normalized = mode == FULL || mode == MINE || mode == MINE_CONTIG ||
                          mode == OWN_DIRECT || mode == HALVES || mode == OWN_ROWS ||
                          mode == RUNTIME_OWN;
  return {residualAdded, normalized, true};
}

int main(int argc, char** argv) {
  const ProbeOptions options = parse_probe_options("fused-twoshot", argc, argv);
  FusionPeers peers = {};
  FusionLayout layout = {};
  layout.gatherOffset = 0;
  layout.sliceStride = SLICE_STRIDE;
  layout.rowCapacity = CAPACITY;
  layout.controlBlocks = FUSION_MAX_BLOCKS;
  const long long area = 2 * 3 * 2 * SLICE_STRIDE;  // [scatter, gather][slot][sender]
  const long long controlBytes = CONTROL_BYTES + MAX_TOKENS * 4;
  std::vector<FusedGpu> gpus = open_fused_gpus(peers, CAPACITY, ROW_BYTES, area, controlBytes);
  const char* fillText = getenv("FUSED_PROBE_FILL_OUTPUTS");
  const bool fillOutputs = fillText != nullptr && strcmp(fillText, "1") == 0;
  bool selected[MODES];
  const char* only = getenv("FUSED_TWOSHOT_MODES");
  for (int mode = 0; mode < MODES; ++mode) {
    const std::string list = only ? std::string(",") + only + "," : "";
    selected[mode] = !only || list.find(std::string(",") + MODE_NAMES[mode] + ",") != std::string::npos;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = std::min(prop.multiProcessorCount, FUSION_MAX_BLOCKS);
  printf("# %s x 2: fused two-shot (hidden %d bf16), %d calls per sample, median of %d, us per call\n",
         prop.name, HIDDEN, options.calls, options.samples);
  for (int mode = 0; mode < MODES; ++mode) {
    cudaFuncAttributes attributes;
    CHECK(cudaFuncGetAttributes(&attributes, KERNELS[mode]));
    printf("%-11s registers=%d local=%zuB\n", MODE_NAMES[mode], attributes.numRegs,
           attributes.localSizeBytes);
  }
  printf("%-11s %6s %7s %8s %8s %8s  %s\n", "variant", "blocks", "threads", "tokens", "graph",
         "eager", "check");
  const std::vector<cudaStream_t> streams{gpus[0].stream, gpus[1].stream};
  int failures = 0;
  const int shapes[2][2] = {{sms, FUSION_THREADS}, {2 * sms, FUSION_THREADS / 2}};
  for (const auto& shape : shapes) {
    const int blocks = shape[0], threads = shape[1];
    for (long long tokens : {32, 64, 96, 128, 160, 192, 224, 256}) {
      for (int round = 0; round < 2; ++round) {
        for (int mode = 0; mode < MODES; ++mode) {
          if (mode == HALVES && threads != FUSION_THREADS) continue;  // rows need 256 threads
          if (!selected[mode]) continue;
          // Every variant starts from empty slots and zero epochs (a grid of another shape keeps
          // other per-block epochs, and own-rows leaves its rank's own entries as it found them).
          reset_fused_areas(gpus, area, controlBytes);
          if (fillOutputs) fill_fused_outputs(gpus, CAPACITY);
          auto call = [&](int g) { launch(mode, gpus[g], peers, layout, g, blocks, threads, tokens); };
          const double graph = median_us_per_call(streams, true, options.calls, options.samples, call);
          const double eager = median_us_per_call(streams, false, options.calls, options.samples, call);
          for (int g = 0; g < 2; ++g) {
            CHECK(cudaSetDevice(g));
            CHECK(cudaDeviceSynchronize());
          }
          const bool ok = check_fused_outputs(gpus, tokens, HIDDEN, expectation(mode));
          failures += ok ? 0 : 1;
          printf("%-11s %6d %7d %8lld %8.2f %8.2f  %s\n", MODE_NAMES[mode], blocks, threads, tokens,
                 graph, eager, ok ? "checked" : "MISMATCH");
          fflush(stdout);
        }
      }
    }
  }
  return failures == 0 ? 0 : 3;
}
