// Fused all-reduce + residual add + RMSNorm (+ FP8 e4m3 output) of gpucomm's CUDA backend, the
// pattern of FlashInfer's trtllm_allreduce_fusion: per token row of `hidden` elements,
//
//   residualOut = allreduce(input) + residualIn
//   out         = residualOut * rsqrt(mean(residualOut^2) + eps) * gamma   (T, or e4m3(out / scale))
//
//   add_rmsnorm      the epilogue alone, run after an NCCL all-reduce that summed into residualOut
//                    (the unfused baseline; residualIn and residualOut may not alias).
//   fused_oneshot    every rank pushes its whole input into every peer's receive area, meets them at
//                    a flag barrier, then sums each row in rank order and applies the epilogue.
//   fused_twoshot    rows are split among ranks (the last takes the remainder): each rank pushes
//                    row i to its owner, the owner sums and normalizes its rows and pushes
//                    residualOut and out into every rank's gather area, and every rank copies the
//                    gathered rows into its buffers; two flag barriers per call.
//   fused_lamport    flag-free one-shot: receive slots hold -0.0 in every lane until data lands (a
//                    real -0.0 is sent as +0.0), so a rank polls its own memory; three slots rotate
//                    and each call clears the slot of the call before. Sends, waits and the refill
//                    all follow the row-to-block mapping, so a call of few rows runs on few blocks,
//                    and each thread waits for its vectors one rank and one vector at a time.
//   fused_lamport_spread
//                    the same protocol and slots, cut the way the plain Lamport one-shot is: the
//                    sends (dealt as (destination, vector) pairs while each thread has at most
//                    two, as the plain kernel's) and the refill are spread over the whole grid (so
//                    every multiprocessor drives NVLink stores, however few the rows), and a row's
//                    reduction keeps its vectors in registers, with every rank's copy, the
//                    residual and gamma loaded
//                    together, so the row costs one memory round trip and one block reduction
//                    before both outputs are stored. On one or two ranks the host may have
//                    several blocks finish each row, each storing its part (RowCall::rowCopies).
//                    Launched with programmatic dependent launch.
//   fused_lamport_cluster
//                    fused_lamport_spread with each row's norm split over a cluster of C thread
//                    blocks (Hopper and later; the host picks C from the row length and the row
//                    count, up to the portable 8): each block waits for, sums and stores its slice
//                    of the row, takes the slice's sum of squares, and reads the C sums from the
//                    cluster's shared memory in block order after a cluster barrier, so a call of
//                    few rows spreads its waits and its norm over C times as many multiprocessors.
//                    Sends and the refill are spread over the grid as fused_lamport_spread's are.
//   fused_lamport2   flag-free two-shot, cut as the plain Lamport two-shot is: the call's vectors
//                    (not its rows) are split into one slice per rank; each rank scatters slice r to
//                    rank r, which sums it, adds the residual, rounds to T and pushes the finished
//                    residualOut slice into every rank's gather slots; every rank then normalizes
//                    every row from its gather slots (the norm is a row's local work once
//                    residualOut is known), so the gather moves what the plain two-shot's does,
//                    and neither output needs a copy pass. A residualOut lane of -0.0 arrives as
//                    +0.0. Launched with programmatic dependent launch, on the fixed grid or,
//                    for calls of more rows than it has blocks (rows that fit half a block's
//                    registers), on twice the blocks of half the threads, two to a
//                    multiprocessor, so that each block has half as many rows.
//   fused_lamport2_own   fused_lamport2 on one or two ranks for calls whose slices are whole rows
//                    held in registers (it traps on more ranks or any other call, which the host
//                    never launches): a rank's own rows never pass through its own slots. The
//                    scatter sends the other rank's slice only; the block of an own row reads the
//                    rank's copy from the input, waits for the other rank's copy, adds the
//                    residual, pushes the finished row into the other rank's gather slots and
//                    normalizes it from its registers; the block of the other rank's row waits
//                    for it in the gather slots. The host runs it where most blocks have a row and
//                    none has two: the row's block then does the reduce that fused_lamport2
//                    spreads over the grid, and the rank's own slice skips the round trip through
//                    its slots (on four ranks the own rows were too few blocks' work). Its slots
//                    and per-block state are fused_lamport2's, so calls may alternate.
//
// Rows map to blocks as row % gridDim.x == blockIdx.x in every kernel and every call (the host
// launches a fixed grid, and fused_lamport2's wide grid for the same call shapes on every rank),
// so block b of every rank works on the same rows and synchronizes only with block b of its
// peers. The spread Lamport kernels need no such pairing: they wait on data,
// never on a peer's block, and refill a slot only after every peer has written it for the last
// time before this rank's next call, as the plain Lamport kernels do. Flags are 32-bit words with
// one writer each, flags[barrier][block][peer] in the waiting rank's memory, holding the per-block
// epoch, which the kernel advances in device memory so that CUDA-graph replays see fresh epochs.
// Receive and gather areas alternate by epoch parity: a rank is at most one call ahead of a peer,
// so it never writes what the peer may still read. Data flags are written after fence.acq_rel.sys
// and read with ld.acquire.sys.
//
// Sums are accumulated in fp32 in rank order (or, with fp32Accumulate off, rounded to T after each
// rank), so every rank and every fused algorithm produce bit-identical residualOut rows (but for
// the sign of a zero in fused_lamport2, see above). The norm is taken over the stored (rounded)
// residual; out is bit-identical on every rank, and across the kernels but fused_lamport_cluster,
// whose sum of squares adds per-block partial sums (in a fixed order, the same on every rank), so
// its out may differ from the other kernels' in the last bit, as may fused_lamport2's on its wide
// grid, whose blocks add the warps' sums of squares in groups of another size. Rows must be whole 16-byte vectors
// (hidden * sizeof(T) % 16 == 0).

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

#include "peer_memory.cuh"

#define FUSION_MAX_RANKS 8

// Built once per world size (-DFUSION_WORLD=2, 4, 8), the kernels see the world as a constant, so
// rank loops unroll and fewer registers stay live across a wait (on two H100s the fused one-shot
// gains 0.35-0.43 us of 5-12); FUSION_WORLD=0 (the generic build) takes it at run time.
#ifndef FUSION_WORLD
#define FUSION_WORLD 0
#endif
#define FUSION_MAX_BLOCKS 132
// fused_lamport2 also runs on twice the host's fixed grid of blocks with half the threads, two per
// multiprocessor, for calls of more rows than the fixed grid has blocks.
#define LAMPORT2_MAX_BLOCKS (2 * FUSION_MAX_BLOCKS)
#define FUSION_THREADS 512
// fused_lamport_cluster's blocks: half of FUSION_THREADS, so that two blocks share a
// multiprocessor and a cluster of blocks fits however the clusters fall on the GPU's
// multiprocessors: the whole grid is resident at once, as the Lamport waits need.
#define CLUSTER_THREADS 256

struct FusionPeers {
  char* base[FUSION_MAX_RANKS];
};

// Byte offsets inside every rank's fusion area (identical on all ranks) and the sizes they hold.
struct FusionLayout {
  long long flagsOffset;    // uint32 [2 barrier][MAX_BLOCKS][MAX_RANKS]
  long long recvOffset;     // [2 parity][world][rowCapacity rows]: one-shot and two-shot inputs
  long long gatherOffset;   // [2 parity][rowCapacity rows]: two-shot residualOut, then out
  long long lamportOffset;  // [3 slot][world][rowCapacity rows], -0.0 when empty
  long long rowCapacity;    // rows of the largest call, in bytes of T per row times rows
  // fused_lamport2's slices at gatherOffset: [2 scatter/gather][3 slot][world][slice stride],
  // -0.0 when empty; the flag two-shot's gather area lies in the same bytes, so a communicator
  // runs one two-shot kernel or the other, never both.
  long long sliceStride;
  // Entries of FusionControl's per-block arrays that the Lamport one-shot kernels keep: the grid
  // of fused_lamport_spread. fused_lamport_cluster may run on fewer blocks (a whole number of
  // clusters) and then keeps the entries of the blocks it lacks too, so that every entry holds
  // the same epoch and slot sizes whichever of the two kernels ran last.
  long long controlBlocks;
};

// Per-block state in this rank's own device memory.
struct FusionControl {
  uint32_t epoch[FUSION_MAX_BLOCKS];
  uint32_t lamportEpoch[FUSION_MAX_BLOCKS];
  long long lamportRows[FUSION_MAX_BLOCKS][3];  // rows of this block each slot held at its last use
  // 16-byte vectors per rank each slot held at its last use (both Lamport kernels record it;
  // fused_lamport_spread refills by it, so a call of another row size refills the whole slot).
  long long lamportVectors[FUSION_MAX_BLOCKS][3];
  // fused_lamport2's, for its widest grid: every call keeps every entry (each block also those of
  // the blocks its grid lacks), so that blocks of a wider or narrower next grid agree on the slot.
  uint32_t lamport2Epoch[LAMPORT2_MAX_BLOCKS];
  long long lamport2Vectors[LAMPORT2_MAX_BLOCKS][3];  // longest slice each slot held at its last use
  // Whether each slot's last use wrote this rank's own entries: a call of own rows leaves them
  // empty, so fused_lamport2_own refills them only after a call that wrote them (fused_lamport2
  // always refills them).
  uint8_t lamport2OwnEntries[LAMPORT2_MAX_BLOCKS][3];
};
// PeerMemory.CONTROL_BYTES, the control block the host allocates and zeroes.
static_assert(sizeof(FusionControl) <= 16384, "FusionControl outgrew the host's control block");

// Vectors of a row one thread of fused_lamport_spread holds in registers, and how many ranks' copies
// of them it loads at once (more would spill at 512 threads per block).
#define SPREAD_ROW_VECTORS 4
#define SPREAD_RANK_GROUP 2

struct RowCall {
  const char* input;
  const char* residualIn;
  const char* gamma;
  char* residualOut;
  char* output;
  long long tokens;
  int hidden;
  float eps;
  float fp8Scale;  // > 0: store e4m3(out / fp8Scale); 0: store T
  int fp32Accumulate;
  // fused_lamport_spread on one or two ranks: how many blocks finish each row (FusedRowCopies on
  // the host); 0 or 1: one. The other kernels ignore it.
  int rowCopies;
};

// The world size the kernels work with: the compiled one, else the launch's.
__device__ __forceinline__ int fusion_world(int runtimeWorld) {
  return FUSION_WORLD > 0 ? FUSION_WORLD : runtimeWorld;
}

// ---------------------------------------------------------------------------------------------
// 16-byte vectors of T as fp32 lanes.

template <typename T>
struct Vec;

template <>
struct Vec<__nv_bfloat16> {
  static constexpr int lanes = 8;
  static constexpr uint32_t sentinel = 0x80008000u;  // -0.0 in both halves of a word
  __device__ static void unpack(uint4 v, float (&f)[8]) {
    const __nv_bfloat162* p = reinterpret_cast<const __nv_bfloat162*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float2 x = __bfloat1622float2(p[i]);
      f[2 * i] = x.x;
      f[2 * i + 1] = x.y;
    }
  }
  __device__ static uint4 pack(const float (&f)[8]) {
    uint4 v;
    __nv_bfloat162* p = reinterpret_cast<__nv_bfloat162*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) p[i] = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
    return v;
  }
};

template <>
struct Vec<__half> {
  static constexpr int lanes = 8;
  static constexpr uint32_t sentinel = 0x80008000u;
  __device__ static void unpack(uint4 v, float (&f)[8]) {
    const __half2* p = reinterpret_cast<const __half2*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float2 x = __half22float2(p[i]);
      f[2 * i] = x.x;
      f[2 * i + 1] = x.y;
    }
  }
  __device__ static uint4 pack(const float (&f)[8]) {
    uint4 v;
    __half2* p = reinterpret_cast<__half2*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) p[i] = __floats2half2_rn(f[2 * i], f[2 * i + 1]);
    return v;
  }
};

template <>
struct Vec<float> {
  static constexpr int lanes = 4;
  static constexpr uint32_t sentinel = 0x80008000u;  // the one fill of the area for every T
  __device__ static void unpack(uint4 v, float (&f)[4]) {
    const float* p = reinterpret_cast<const float*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) f[i] = p[i];
  }
  __device__ static uint4 pack(const float (&f)[4]) {
    uint4 v;
    float* p = reinterpret_cast<float*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) p[i] = f[i];
    return v;
  }
};

// Rounds every lane to T (the element-type accumulation of fp32Accumulate off).
template <typename T>
__device__ __forceinline__ void round_lanes(float (&f)[Vec<T>::lanes]) {
  uint4 packed = Vec<T>::pack(f);
  Vec<T>::unpack(packed, f);
}

template <typename T>
__device__ __forceinline__ void add_vector(float (&acc)[Vec<T>::lanes], uint4 v, bool first,
                                           bool roundToT) {
  float x[Vec<T>::lanes];
  Vec<T>::unpack(v, x);
#pragma unroll
  for (int i = 0; i < Vec<T>::lanes; ++i) acc[i] = first ? x[i] : acc[i] + x[i];
  if (!first && roundToT) round_lanes<T>(acc);
}

// Lamport: a received vector is complete when no lane holds -0.0. The area is filled with
// 0x80008000 words whatever T is (-0.0 in both 16-bit halves), which fp32 also reads as empty, so
// one area serves calls of every element type.
__device__ __forceinline__ bool fp32_empty(uint32_t w) { return w == 0x80000000u || w == 0x80008000u; }

template <typename T>
__device__ __forceinline__ bool lamport_empty(uint4 v) {
  if (sizeof(T) == 4) return fp32_empty(v.x) || fp32_empty(v.y) || fp32_empty(v.z) || fp32_empty(v.w);
  uint32_t words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if ((words[i] & 0xffffu) == 0x8000u || (words[i] >> 16) == 0x8000u) return true;
  }
  return false;
}

// Replaces -0.0 lanes by +0.0 so that sent data never looks empty.
template <typename T>
__device__ __forceinline__ uint4 lamport_clean(uint4 v) {
  uint32_t words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if (sizeof(T) == 4) {
      if (fp32_empty(words[i])) words[i] = 0;  // -0.0, or a negative subnormal sent as +0.0
    } else {
      if ((words[i] & 0xffffu) == 0x8000u) words[i] &= 0xffff0000u;
      if ((words[i] >> 16) == 0x8000u) words[i] &= 0x0000ffffu;
    }
  }
  return make_uint4(words[0], words[1], words[2], words[3]);
}

// Sum over the block; every thread gets the total.
__device__ __forceinline__ float block_sum(float value) {
  __shared__ float partial[FUSION_THREADS / 32];
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_xor_sync(0xffffffffu, value, offset);
  int warp = threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  __syncthreads();  // the previous row's readers are done with `partial`
  if (lane == 0) partial[warp] = value;
  __syncthreads();
  float total = 0.f;
  int warps = (blockDim.x + 31) / 32;
  for (int w = 0; w < warps; ++w) total += partial[w];
  return total;
}

// ---------------------------------------------------------------------------------------------
// Stores vector v of an output row: residual lanes r times inverseRms times gamma, as T or as e4m3
// divided by the FP8 scale.
template <typename T>
__device__ __forceinline__ void store_normalized(const RowCall& c, char* outDst, int v,
                                                 const float (&residual)[Vec<T>::lanes],
                                                 uint4 gammaVector, float inverseRms) {
  constexpr int L = Vec<T>::lanes;
  float r[L], g[L];
  Vec<T>::unpack(gammaVector, g);
#pragma unroll
  for (int i = 0; i < L; ++i) r[i] = residual[i] * inverseRms * g[i];
  if (c.fp8Scale > 0.f) {
    __nv_fp8_e4m3 q[L];
#pragma unroll
    for (int i = 0; i < L; ++i) q[i] = __nv_fp8_e4m3(r[i] / c.fp8Scale);
    if (L == 8) {
      *reinterpret_cast<uint2*>(outDst + (long long)v * L) = *reinterpret_cast<uint2*>(q);
    } else {
      *reinterpret_cast<uint32_t*>(outDst + (long long)v * L) = *reinterpret_cast<uint32_t*>(q);
    }
  } else {
    reinterpret_cast<uint4*>(outDst)[v] = Vec<T>::pack(r);
  }
}

// ---------------------------------------------------------------------------------------------
// The epilogue of one row whose sums a caller-supplied functor yields vector by vector.
// Pass 1 writes residualOut = round(sum + residualIn) and sums its squares; pass 2 rereads what
// this thread wrote and writes out. `residualDst` and `outDst` point at the row's first byte.
// Without AddResidual the functor yields residualOut itself.

template <typename T, bool AddResidual = true, typename SumOf>
__device__ __forceinline__ void normalize_row(const RowCall& c, long long row, SumOf sumOf,
                                              char* residualDst, char* outDst) {
  constexpr int L = Vec<T>::lanes;
  const int vectors = c.hidden / L;
  const uint4* residualIn = reinterpret_cast<const uint4*>(c.residualIn + row * c.hidden * sizeof(T));
  uint4* residualRow = reinterpret_cast<uint4*>(residualDst);
  float squares = 0.f;
  for (int v = threadIdx.x; v < vectors; v += blockDim.x) {
    float acc[L];
    sumOf(v, acc);
    float r[L];
    if (AddResidual) {
      Vec<T>::unpack(residualIn[v], r);
    } else {
#pragma unroll
      for (int i = 0; i < L; ++i) r[i] = 0.f;
    }
#pragma unroll
    for (int i = 0; i < L; ++i) r[i] = acc[i] + r[i];
    round_lanes<T>(r);
#pragma unroll
    for (int i = 0; i < L; ++i) squares += r[i] * r[i];
    residualRow[v] = Vec<T>::pack(r);
  }
  float inverseRms = rsqrtf(block_sum(squares) / c.hidden + c.eps);
  const uint4* gamma = reinterpret_cast<const uint4*>(c.gamma);
  for (int v = threadIdx.x; v < vectors; v += blockDim.x) {
    float r[L];
    Vec<T>::unpack(residualRow[v], r);
    store_normalized<T>(c, outDst, v, r, gamma[v], inverseRms);
  }
}

__device__ __forceinline__ int out_bytes(const RowCall& c, int elementBytes) {
  return c.fp8Scale > 0.f ? 1 : elementBytes;
}

// ---------------------------------------------------------------------------------------------
// Block barrier with the same block of every peer: thread t < world raises this rank's flag in
// peer t's memory, then waits for peer t's flag in its own.

__device__ __forceinline__ uint32_t* fusion_flag(char* base, const FusionLayout& layout, int barrier,
                                                 int block, int peer) {
  return reinterpret_cast<uint32_t*>(base + layout.flagsOffset) +
         ((long long)barrier * FUSION_MAX_BLOCKS + block) * FUSION_MAX_RANKS + peer;
}

__device__ __forceinline__ void block_barrier(const FusionPeers& peers, const FusionLayout& layout,
                                              int barrier, uint32_t epoch, int rank, int world) {
  __syncthreads();
  int t = threadIdx.x;
  if (t < world) {
    fence_acq_rel_sys();
    st_release_sys(fusion_flag(peers.base[t], layout, barrier, blockIdx.x, rank), epoch);
    const uint32_t* mine = fusion_flag(peers.base[rank], layout, barrier, blockIdx.x, t);
    while ((int32_t)(ld_acquire_sys(mine) - epoch) < 0) {
    }
  }
  __syncthreads();
}

// ---------------------------------------------------------------------------------------------
// Kernels. Argument order is the same for every fused kernel (FusionKernels on the host).

template <typename T>
__device__ void add_rmsnorm(const RowCall& c) {
  // residualOut holds the all-reduced sum; it becomes sum + residualIn in place.
  for (long long row = blockIdx.x; row < c.tokens; row += gridDim.x) {
    char* residualRow = c.residualOut + row * c.hidden * sizeof(T);
    const uint4* sums = reinterpret_cast<const uint4*>(residualRow);
    normalize_row<T>(
        c, row, [&](int v, float (&acc)[Vec<T>::lanes]) { Vec<T>::unpack(sums[v], acc); },
        residualRow, c.output + row * c.hidden * out_bytes(c, sizeof(T)));
  }
}

template <typename T>
__device__ void fused_oneshot(const RowCall& c, const FusionPeers& peers, const FusionLayout& layout,
                              FusionControl* control, int rank, int world) {
  const uint32_t epoch = control->epoch[blockIdx.x] + 1;
  const long long rowBytes = (long long)c.hidden * sizeof(T);
  const long long parityStride = world * layout.rowCapacity;
  const long long recv = layout.recvOffset + (epoch & 1) * parityStride;
  const int vectors = c.hidden / Vec<T>::lanes;
  for (long long row = blockIdx.x; row < c.tokens; row += gridDim.x) {
    const uint4* in = reinterpret_cast<const uint4*>(c.input + row * rowBytes);
    for (int v = threadIdx.x; v < vectors; v += blockDim.x) {
      uint4 x = in[v];
      for (int p = 0; p < world; ++p) {
        int peer = (rank + p) % world;
        reinterpret_cast<uint4*>(peers.base[peer] + recv + rank * layout.rowCapacity +
                                 row * rowBytes)[v] = x;
      }
    }
  }
  block_barrier(peers, layout, 0, epoch, rank, world);
  const char* own = peers.base[rank] + recv;
  for (long long row = blockIdx.x; row < c.tokens; row += gridDim.x) {
    normalize_row<T>(
        c, row,
        [&](int v, float (&acc)[Vec<T>::lanes]) {
          for (int r = 0; r < world; ++r) {
            uint4 x = reinterpret_cast<const uint4*>(own + r * layout.rowCapacity + row * rowBytes)[v];
            add_vector<T>(acc, x, r == 0, !c.fp32Accumulate);
          }
        },
        c.residualOut + row * rowBytes, c.output + row * c.hidden * out_bytes(c, sizeof(T)));
  }
  __syncthreads();
  if (threadIdx.x == 0) control->epoch[blockIdx.x] = epoch;
}

template <typename T>
__device__ void fused_twoshot(const RowCall& c, const FusionPeers& peers, const FusionLayout& layout,
                              FusionControl* control, int rank, int world) {
  const uint32_t epoch = control->epoch[blockIdx.x] + 1;
  const long long rowBytes = (long long)c.hidden * sizeof(T);
  const int outRowBytes = c.hidden * out_bytes(c, sizeof(T));
  const long long recv = layout.recvOffset + (epoch & 1) * world * layout.rowCapacity;
  // The gather area holds residualOut rows, then out rows, each up to rowCapacity bytes.
  const long long gather = layout.gatherOffset + (epoch & 1) * 2 * layout.rowCapacity;
  const long long rowsPerRank = c.tokens / world;
  const int vectors = c.hidden / Vec<T>::lanes;
  auto owner = [&](long long row) {
    long long o = rowsPerRank == 0 ? world - 1 : row / rowsPerRank;
    return (int)(o < world ? o : world - 1);
  };
  for (long long row = blockIdx.x; row < c.tokens; row += gridDim.x) {
    const uint4* in = reinterpret_cast<const uint4*>(c.input + row * rowBytes);
    char* dst = peers.base[owner(row)] + recv + rank * layout.rowCapacity + row * rowBytes;
    for (int v = threadIdx.x; v < vectors; v += blockDim.x) reinterpret_cast<uint4*>(dst)[v] = in[v];
  }
  block_barrier(peers, layout, 0, epoch, rank, world);
  const char* own = peers.base[rank] + recv;
  for (long long row = blockIdx.x; row < c.tokens; row += gridDim.x) {
    if (owner(row) != rank) continue;
    char* residualRow = peers.base[rank] + gather + row * rowBytes;
    char* outRow = peers.base[rank] + gather + layout.rowCapacity + row * outRowBytes;
    normalize_row<T>(
        c, row,
        [&](int v, float (&acc)[Vec<T>::lanes]) {
          for (int r = 0; r < world; ++r) {
            uint4 x = reinterpret_cast<const uint4*>(own + r * layout.rowCapacity + row * rowBytes)[v];
            add_vector<T>(acc, x, r == 0, !c.fp32Accumulate);
          }
        },
        residualRow, outRow);
    __syncthreads();
    // Push the finished row into every peer's gather area (whole 16-byte vectors of both rows).
    for (int p = 1; p < world; ++p) {
      int peer = (rank + p) % world;
      char* peerGather = peers.base[peer] + gather;
      for (int v = threadIdx.x; v < vectors; v += blockDim.x) {
        reinterpret_cast<uint4*>(peerGather + row * rowBytes)[v] =
            reinterpret_cast<const uint4*>(residualRow)[v];
      }
      for (int b = threadIdx.x * 4; b < outRowBytes; b += blockDim.x * 4) {
        *reinterpret_cast<uint32_t*>(peerGather + layout.rowCapacity + row * outRowBytes + b) =
            *reinterpret_cast<const uint32_t*>(outRow + b);
      }
    }
  }
  block_barrier(peers, layout, 1, epoch, rank, world);
  const char* gathered = peers.base[rank] + gather;
  for (long long row = blockIdx.x; row < c.tokens; row += gridDim.x) {
    for (int v = threadIdx.x; v < vectors; v += blockDim.x) {
      reinterpret_cast<uint4*>(c.residualOut + row * rowBytes)[v] =
          reinterpret_cast<const uint4*>(gathered + row * rowBytes)[v];
    }
    for (int b = threadIdx.x * 4; b < outRowBytes; b += blockDim.x * 4) {
      *reinterpret_cast<uint32_t*>(c.output + row * outRowBytes + b) =
          *reinterpret_cast<const uint32_t*>(gathered + layout.rowCapacity + row * outRowBytes + b);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) control->epoch[blockIdx.x] = epoch;
}

template <typename T>
__device__ void fused_lamport(const RowCall& c, const FusionPeers& peers, const FusionLayout& layout,
                              FusionControl* control, int rank, int world) {
  const uint32_t epoch = control->lamportEpoch[blockIdx.x] + 1;
  const int slot = epoch % 3;
  const int previous = (epoch + 2) % 3;
  const long long rowBytes = (long long)c.hidden * sizeof(T);
  const long long slotStride = world * layout.rowCapacity;
  const int vectors = c.hidden / Vec<T>::lanes;
  const char* own = peers.base[rank] + layout.lamportOffset + slot * slotStride;
  for (long long row = blockIdx.x; row < c.tokens; row += gridDim.x) {
    const uint4* in = reinterpret_cast<const uint4*>(c.input + row * rowBytes);
    for (int v = threadIdx.x; v < vectors; v += blockDim.x) {
      uint4 x = lamport_clean<T>(in[v]);
      for (int p = 0; p < world; ++p) {
        int peer = (rank + p) % world;
        st_volatile_v4(reinterpret_cast<uint4*>(peers.base[peer] + layout.lamportOffset +
                                                slot * slotStride + rank * layout.rowCapacity +
                                                row * rowBytes) +
                           v,
                       x);
      }
    }
  }
  for (long long row = blockIdx.x; row < c.tokens; row += gridDim.x) {
    normalize_row<T>(
        c, row,
        [&](int v, float (&acc)[Vec<T>::lanes]) {
          for (int r = 0; r < world; ++r) {
            const uint4* src =
                reinterpret_cast<const uint4*>(own + r * layout.rowCapacity + row * rowBytes) + v;
            uint4 x;
            do {
              x = ld_volatile_v4(src);
            } while (lamport_empty<T>(x));
            add_vector<T>(acc, x, r == 0, !c.fp32Accumulate);
          }
        },
        c.residualOut + row * rowBytes, c.output + row * c.hidden * out_bytes(c, sizeof(T)));
  }
  // Refill the previous call's slot with the sentinel: every peer wrote it before this rank could
  // finish that call, and no peer writes it again before this rank's next-but-one call.
  char* stale = peers.base[rank] + layout.lamportOffset + previous * slotStride;
  long long staleRows = control->lamportRows[blockIdx.x][previous];
  const uint32_t s = Vec<T>::sentinel;
  const uint4 empty = make_uint4(s, s, s, s);
  for (int r = 0; r < world; ++r) {
    for (long long row = blockIdx.x; row < staleRows; row += gridDim.x) {
      for (int v = threadIdx.x; v < vectors; v += blockDim.x) {
        st_volatile_v4(reinterpret_cast<uint4*>(stale + r * layout.rowCapacity + row * rowBytes) + v,
                       empty);
      }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    control->lamportRows[blockIdx.x][slot] = c.tokens;
    control->lamportVectors[blockIdx.x][slot] = c.tokens * rowBytes / 16;
    control->lamportEpoch[blockIdx.x] = epoch;
  }
}

// fused_lamport_spread ------------------------------------------------------------------------

// The thread's index in a grid-wide loop whose consecutive 32-vector runs go to different blocks:
// a small call then keeps every multiprocessor busy instead of the first few, and each warp still
// moves 512 contiguous bytes.
__device__ __forceinline__ long long spread_index() {
  return ((long long)(threadIdx.x / 32) * gridDim.x + blockIdx.x) * 32 + threadIdx.x % 32;
}

// Waits until vals[r][k] holds vector threadIdx.x + k * blockDim.x of rank r0 + r's copy of the row
// at rowBase (copies rankStride bytes apart) for every r < ranks and k < vectorCount: every load is
// issued before any is checked, and only those still empty are issued again, so a wait costs one
// memory round trip rather than one per rank and vector.
template <typename T, int R, int K>
__device__ __forceinline__ void lamport_wait(const char* rowBase, long long rankStride, int r0,
                                             uint4 (&vals)[R][K], int ranks, int vectorCount) {
  auto src = [&](int r, int k) {
    return reinterpret_cast<const uint4*>(rowBase + (r0 + r) * rankStride) + threadIdx.x +
           k * blockDim.x;
  };
#pragma unroll
  for (int r = 0; r < R; ++r) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (r < ranks && k < vectorCount) vals[r][k] = ld_volatile_v4(src(r, k));
    }
  }
  for (;;) {
    bool pending = false;
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (r < ranks && k < vectorCount && lamport_empty<T>(vals[r][k])) {
          vals[r][k] = ld_volatile_v4(src(r, k));
          pending = pending || lamport_empty<T>(vals[r][k]);
        }
      }
    }
    if (!pending) break;
  }
}

// The vectors of a row one thread holds: threadIdx.x + k * blockDim.x for k < mine.
__device__ __forceinline__ int row_vectors_of_thread(int rowVectors) {
  return threadIdx.x < rowVectors ? (rowVectors - 1 - (int)threadIdx.x) / (int)blockDim.x + 1 : 0;
}

// Finishes a row whose residualOut lanes (rounded to T) this thread holds in registers, vectors
// firstVector + threadIdx.x + k * blockDim.x: stores them, turns the thread's sum of squares into
// the row's with rowSum (every thread of the block calls it) and stores out.
template <typename T, int K, typename RowSum>
__device__ __forceinline__ void finish_row_in_registers(const RowCall& c, long long row,
                                                        float (&residual)[K][Vec<T>::lanes],
                                                        const uint4 (&gammaVectors)[K], int mine,
                                                        int firstVector, RowSum rowSum) {
  constexpr int L = Vec<T>::lanes;
  const long long rowBytes = (long long)c.hidden * sizeof(T);
  uint4* residualOut = reinterpret_cast<uint4*>(c.residualOut + row * rowBytes) + firstVector;
  float squares = 0.f;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (k < mine) {
#pragma unroll
      for (int i = 0; i < L; ++i) squares += residual[k][i] * residual[k][i];
      residualOut[threadIdx.x + k * blockDim.x] = Vec<T>::pack(residual[k]);
    }
  }
  const float inverseRms = rsqrtf(rowSum(squares) / c.hidden + c.eps);
  char* out = c.output + row * c.hidden * out_bytes(c, sizeof(T));
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (k < mine) {
      store_normalized<T>(c, out, firstVector + threadIdx.x + k * blockDim.x, residual[k],
                          gammaVectors[k], inverseRms);
    }
  }
}

// A row that one block owns: its sum of squares is the block's.
template <typename T, int K>
__device__ __forceinline__ void finish_row_in_registers(const RowCall& c, long long row,
                                                        float (&residual)[K][Vec<T>::lanes],
                                                        const uint4 (&gammaVectors)[K], int mine) {
  finish_row_in_registers<T, K>(c, row, residual, gammaVectors, mine, 0,
                                [](float squares) { return block_sum(squares); });
}

template <int K>
__device__ __forceinline__ void load_gamma(const RowCall& c, uint4 (&gammaVectors)[K], int mine,
                                           int firstVector = 0) {
  const uint4* gamma = reinterpret_cast<const uint4*>(c.gamma) + firstVector;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (k < mine) gammaVectors[k] = gamma[threadIdx.x + k * blockDim.x];
  }
}

// Vectors firstVector..firstVector + sliceVectors of one row, held in the block's registers
// (vector firstVector + threadIdx.x + k * blockDim.x for k < SPREAD_ROW_VECTORS): the residual,
// gamma and the first ranks' copies are loaded together, residualOut is stored before rowSum turns
// the block's sum of squares into the row's, out right after it.
template <typename T, typename RowSum>
__device__ __forceinline__ void spread_slice(const RowCall& c, long long row, const char* slotBase,
                                             long long rankStride, int world, int firstVector,
                                             int sliceVectors, RowSum rowSum) {
  constexpr int L = Vec<T>::lanes;
  constexpr int K = SPREAD_ROW_VECTORS;
  constexpr int G = SPREAD_RANK_GROUP;
  const long long rowBytes = (long long)c.hidden * sizeof(T);
  const int mine = row_vectors_of_thread(sliceVectors);
  const uint4* residualIn =
      reinterpret_cast<const uint4*>(c.residualIn + row * rowBytes) + firstVector;
  uint4 residualVectors[K], gammaVectors[K];
  load_gamma<K>(c, gammaVectors, mine, firstVector);
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (k < mine) residualVectors[k] = residualIn[threadIdx.x + k * blockDim.x];
  }
  float acc[K][L];
  const char* sliceBase = slotBase + row * rowBytes + (long long)firstVector * 16;
  for (int r0 = 0; r0 < world; r0 += G) {
    uint4 vals[G][K];
    lamport_wait<T, G, K>(sliceBase, rankStride, r0, vals, world - r0, mine);
#pragma unroll
    for (int r = 0; r < G; ++r) {
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (r0 + r < world && k < mine) add_vector<T>(acc[k], vals[r][k], r0 + r == 0, !c.fp32Accumulate);
      }
    }
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (k < mine) {
      float residual[L];
      Vec<T>::unpack(residualVectors[k], residual);
#pragma unroll
      for (int i = 0; i < L; ++i) acc[k][i] += residual[i];
      round_lanes<T>(acc[k]);
    }
  }
  finish_row_in_registers<T, K>(c, row, acc, gammaVectors, mine, firstVector, rowSum);
}

// One row whose vectors fit in the block's registers, the block its only owner.
template <typename T>
__device__ __forceinline__ void spread_row(const RowCall& c, long long row, const char* slotBase,
                                           long long rankStride, int world) {
  spread_slice<T>(c, row, slotBase, rankStride, world, 0, c.hidden / Vec<T>::lanes,
                  [](float squares) { return block_sum(squares); });
}

// Pushes this rank's input into slot `slot` of every rank; then refills the slot this rank
// received in the previous call while this call's data is on its way. No peer writes that slot
// again before this rank has finished its next call, which starts only once this grid has
// completed. A call of at most two (destination, vector) pairs per thread deals the pairs to
// consecutive threads, both loads before either store, as the plain Lamport one-shot does (at 4
// tokens of 8192 bf16 on two H100s 0.7 us faster than the loop below); larger calls are spread
// over the whole grid with a few loads in flight before the stores.
template <typename T>
__device__ __forceinline__ void lamport_send_and_refill(const RowCall& c, const FusionPeers& peers,
                                                        const FusionLayout& layout,
                                                        const FusionControl* control, int rank,
                                                        int world, int slot, int previous,
                                                        long long vectors) {
  const long long slotStride = world * layout.rowCapacity;
  const long long first = spread_index();
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long slotOffset = layout.lamportOffset + slot * slotStride + rank * layout.rowCapacity;
  constexpr int BATCH = 4;
  const uint4* input = reinterpret_cast<const uint4*>(c.input);
  const long long sends = vectors * world;
  if (sends <= 2 * stride) {
    // sends fits in 32 bits here (at most twice the grid's threads)
    const uint32_t n = (uint32_t)vectors;
    const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x, j2 = j + (uint32_t)stride;
    uint4 x1, x2;
    int s1 = 0, s2 = 0;
    uint32_t v1 = 0, v2 = 0;
    if (j < sends) {
      s1 = (int)(j / n);
      v1 = j - s1 * n;
      x1 = lamport_clean<T>(input[v1]);
    }
    if (j2 < sends) {
      s2 = (int)(j2 / n);
      v2 = j2 - s2 * n;
      x2 = lamport_clean<T>(input[v2]);
    }
    if (j < sends) {
      st_volatile_v4(reinterpret_cast<uint4*>(peers.base[(rank + s1) % world] + slotOffset) + v1, x1);
    }
    if (j2 < sends) {
      st_volatile_v4(reinterpret_cast<uint4*>(peers.base[(rank + s2) % world] + slotOffset) + v2, x2);
    }
  }
  for (long long base = sends <= 2 * stride ? vectors : first; base < vectors;
       base += BATCH * stride) {
    uint4 x[BATCH];
#pragma unroll
    for (int b = 0; b < BATCH; ++b) {
      if (base + b * stride < vectors) x[b] = lamport_clean<T>(input[base + b * stride]);
    }
#pragma unroll
    for (int b = 0; b < BATCH; ++b) {
      if (base + b * stride < vectors) {
        for (int p = 0; p < world; ++p) {
          const int peer = (rank + p) % world;
          st_volatile_v4(reinterpret_cast<uint4*>(peers.base[peer] + slotOffset) + base + b * stride,
                         x[b]);
        }
      }
    }
  }
  char* stale = peers.base[rank] + layout.lamportOffset + previous * slotStride;
  const long long staleVectors = control->lamportVectors[blockIdx.x][previous];
  const uint32_t s = Vec<T>::sentinel;
  const uint4 empty = make_uint4(s, s, s, s);
  for (int r = 0; r < world; ++r) {
    for (long long v = first; v < staleVectors; v += stride) {
      st_volatile_v4(reinterpret_cast<uint4*>(stale + r * layout.rowCapacity) + v, empty);
    }
  }
}

// fused_lamport_spread's rows, one block each: held in registers, or reread from memory for
// rows too long for them. Not inlined in the builds that also hold spread_rows_of_two_ranks
// (world 2 and the generic one): beside it in one function its registers made that path spill
// (ptxas: 28 bytes a thread at world 2, 160 in the generic build), and the call happens once per
// kernel. The world-4 and -8 builds run every row here and keep it inlined, as before.
#if FUSION_WORLD <= 2
#define SPREAD_ROWS_INLINING __noinline__
#else
#define SPREAD_ROWS_INLINING __forceinline__
#endif
template <typename T>
__device__ SPREAD_ROWS_INLINING void spread_rows(const RowCall& c, const char* own, long long rankStride,
                                            int world, bool inRegisters) {
  const long long rowBytes = (long long)c.hidden * sizeof(T);
  for (long long row = blockIdx.x; row < c.tokens; row += gridDim.x) {
    if (inRegisters) {
      spread_row<T>(c, row, own, rankStride, world);
    } else {
      normalize_row<T>(
          c, row,
          [&](int v, float (&acc)[Vec<T>::lanes]) {
            for (int r = 0; r < world; ++r) {
              const uint4* src =
                  reinterpret_cast<const uint4*>(own + r * rankStride + row * rowBytes) + v;
              uint4 x;
              do {
                x = ld_volatile_v4(src);
              } while (lamport_empty<T>(x));
              add_vector<T>(acc, x, r == 0, !c.fp32Accumulate);
            }
          },
          c.residualOut + row * rowBytes, c.output + row * c.hidden * out_bytes(c, sizeof(T)));
    }
  }
}

// fused_lamport_spread's rows on one or two ranks where a row fits the block's registers: each
// thread waits for its vectors of both ranks' copies at once, adds them and the residual, stores
// residualOut as each vector is done, and keeps it for the norm. `copies` blocks finish each row:
// block b part b % copies of row b / copies (+ the rows a pass of the grid leaves); each waits for
// the whole row and takes its norm, and stores its part of both outputs. Their sums are the same
// floats in the same order, so they agree bit for bit without meeting, and the row's stores and
// dependent arithmetic are split over several multiprocessors. Written apart from spread_slice's
// rank groups: on two H200s this form of the same work took 0.3-0.4 us off at 16-128 rows of
// 8192 bf16 in bench/probes/fused-residency.cu (full-w2 of two builds) and 0.5-1.0 us in gpucomm
// bench; at 1-4 rows the two disagree (0.1 us more in the probe, 0.2 less in the sweep).
template <typename T>
__device__ __forceinline__ void spread_rows_of_two_ranks(const RowCall& c, const char* slotBase,
                                                         long long rankStride, int world,
                                                         int copies) {
  constexpr int L = Vec<T>::lanes;
  constexpr int K = SPREAD_ROW_VECTORS;
  const long long rowBytes = (long long)c.hidden * sizeof(T);
  const int rowVectors = c.hidden / L;
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
    lamport_wait<T, 2, K>(slotBase + row * rowBytes, rankStride, 0, vals, world, mine);
    uint4* residualOut = reinterpret_cast<uint4*>(c.residualOut + row * rowBytes);
    float acc[K][L];
    float squares = 0.f;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (k < mine) {
        add_vector<T>(acc[k], vals[0][k], true, false);
        if (world == 2) add_vector<T>(acc[k], vals[1][k], false, !c.fp32Accumulate);
        float residual[L];
        Vec<T>::unpack(residualVectors[k], residual);
#pragma unroll
        for (int i = 0; i < L; ++i) acc[k][i] += residual[i];
        const uint4 packed = Vec<T>::pack(acc[k]);
        if (stores[k]) residualOut[threadIdx.x + k * blockDim.x] = packed;
        Vec<T>::unpack(packed, acc[k]);
#pragma unroll
        for (int i = 0; i < L; ++i) squares += acc[k][i] * acc[k][i];
      }
    }
    const float inverseRms = rsqrtf(block_sum(squares) / c.hidden + c.eps);
    char* out = c.output + row * c.hidden * out_bytes(c, sizeof(T));
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (stores[k]) {
        store_normalized<T>(c, out, threadIdx.x + k * blockDim.x, acc[k], gammaVectors[k],
                            inverseRms);
      }
    }
  }
}

template <typename T>
__device__ void fused_lamport_spread(const RowCall& c, const FusionPeers& peers, const FusionLayout& layout,
                                     FusionControl* control, int rank, int world) {
  wait_for_previous_grid();
  const uint32_t epoch = control->lamportEpoch[blockIdx.x] + 1;
  const int slot = epoch % 3;
  const int previous = (epoch + 2) % 3;
  const long long rowBytes = (long long)c.hidden * sizeof(T);
  const long long slotStride = world * layout.rowCapacity;
  const long long vectors = c.tokens * rowBytes / 16;  // per rank, every row whole vectors
  lamport_send_and_refill<T>(c, peers, layout, control, rank, world, slot, previous, vectors);

  const char* own = peers.base[rank] + layout.lamportOffset + slot * slotStride;
  const int rowVectors = c.hidden / Vec<T>::lanes;
  const bool inRegisters = rowVectors <= SPREAD_ROW_VECTORS * (int)blockDim.x;
  if (inRegisters && world <= 2) {
    // the host keeps rowCopies within the grid; a count beyond it would leave rows unfinished
    spread_rows_of_two_ranks<T>(c, own, layout.rowCapacity, world,
                                min(max(1, c.rowCopies), (int)gridDim.x));
  } else {
    spread_rows<T>(c, own, layout.rowCapacity, world, inRegisters);
  }
  __syncthreads();  // every thread has read this block's control words
  if (threadIdx.x == 0) {
    control->lamportRows[blockIdx.x][slot] = c.tokens;
    control->lamportVectors[blockIdx.x][slot] = vectors;
    control->lamportEpoch[blockIdx.x] = epoch;
  }
}

// fused_lamport_cluster -----------------------------------------------------------------------
// Thread block clusters and distributed shared memory are Hopper (sm_90) features, which every
// kernel of this file is compiled for; the host launches this kernel only on such GPUs.

__device__ __forceinline__ uint32_t cluster_block_rank() {
  uint32_t value;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(value));
  return value;
}

__device__ __forceinline__ uint32_t cluster_blocks() {
  uint32_t value;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(value));
  return value;
}

// Every thread of every block of the cluster arrives; shared-memory writes before it are visible
// to the cluster's reads after it.
__device__ __forceinline__ void cluster_barrier() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Reads a float at the same shared-memory variable of block `block` of the cluster.
__device__ __forceinline__ float load_cluster_shared(const float* local, uint32_t block) {
  const uint32_t address = (uint32_t)__cvta_generic_to_shared(local);
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(address), "r"(block));
  float value;
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(value) : "r"(remote) : "memory");
  return value;
}

// The row's sum of squares from the blocks' sums: each block publishes its own, and every thread
// adds the cluster's in block order (lane i of each warp loads block i's), so every block of every
// rank gets the same float. Rows alternate between two cells: a block writes a row's cell only
// after the barrier of the row before, which every block passes only once it has read the cell.
__device__ __forceinline__ float cluster_sum(float blockSum, int parity) {
  __shared__ float published[2];
  if (threadIdx.x == 0) published[parity] = blockSum;
  cluster_barrier();
  const uint32_t blocks = cluster_blocks();
  const uint32_t lane = threadIdx.x % 32;
  const float mine = lane < blocks ? load_cluster_shared(&published[parity], lane) : 0.f;
  float total = 0.f;
  for (uint32_t block = 0; block < blocks; ++block) total += __shfl_sync(0xffffffffu, mine, block);
  return total;
}

// fused_lamport_spread's protocol with rows split over one-dimensional clusters: cluster k takes
// rows k, k + clusters, ...; block b of a cluster of C the b-th of C equal slices of the row (the
// host picks C so that they are whole and fit the block's registers, and launches whole warps).
template <typename T>
__device__ void fused_lamport_cluster(const RowCall& c, const FusionPeers& peers, const FusionLayout& layout,
                                      FusionControl* control, int rank, int world) {
  wait_for_previous_grid();
  const uint32_t epoch = control->lamportEpoch[blockIdx.x] + 1;
  const int slot = epoch % 3;
  const int previous = (epoch + 2) % 3;
  const long long rowBytes = (long long)c.hidden * sizeof(T);
  const long long slotStride = world * layout.rowCapacity;
  const long long vectors = c.tokens * rowBytes / 16;  // per rank, every row whole vectors
  lamport_send_and_refill<T>(c, peers, layout, control, rank, world, slot, previous, vectors);

  const char* own = peers.base[rank] + layout.lamportOffset + slot * slotStride;
  const int blocksPerCluster = (int)cluster_blocks();
  const int clusters = gridDim.x / blocksPerCluster;
  const int sliceVectors = c.hidden / Vec<T>::lanes / blocksPerCluster;
  const int firstVector = (int)cluster_block_rank() * sliceVectors;
  int parity = 0;
  for (long long row = blockIdx.x / blocksPerCluster; row < c.tokens; row += clusters) {
    spread_slice<T>(c, row, own, layout.rowCapacity, world, firstVector, sliceVectors,
                    [&](float squares) { return cluster_sum(block_sum(squares), parity); });
    parity ^= 1;
  }
  // No block leaves while another may still read its shared memory.
  cluster_barrier();
  if (threadIdx.x == 0) {
    for (long long b = blockIdx.x; b < layout.controlBlocks; b += gridDim.x) {
      control->lamportRows[b][slot] = c.tokens;
      control->lamportVectors[b][slot] = vectors;
      control->lamportEpoch[b] = epoch;
    }
  }
}

// fused_lamport2 -----------------------------------------------------------------------------

__device__ __forceinline__ uint4* slice_area(char* base, const FusionLayout& layout, int world,
                                             int area, int slot, int sender) {
  return reinterpret_cast<uint4*>(base + layout.gatherOffset +
                                  ((long long)(area * 3 + slot) * world + sender) * layout.sliceStride);
}

// Waits for vector i of every rank's copy in the scatter slots, all loads in flight at once.
template <typename T>
__device__ __forceinline__ void wait_all_ranks(const uint4* first, long long sliceVectors, int world,
                                               uint4 (&vals)[FUSION_MAX_RANKS]) {
#pragma unroll
  for (int r = 0; r < FUSION_MAX_RANKS; ++r) {
    if (r < world) vals[r] = ld_volatile_v4(first + r * sliceVectors);
  }
  for (;;) {
    bool pending = false;
#pragma unroll
    for (int r = 0; r < FUSION_MAX_RANKS; ++r) {
      if (r < world && lamport_empty<T>(vals[r])) {
        vals[r] = ld_volatile_v4(first + r * sliceVectors);
        pending = pending || lamport_empty<T>(vals[r]);
      }
    }
    if (!pending) break;
  }
}

// What both Lamport two-shot kernels derive from the call and their block's state.
struct Lamport2Call {
  int rowVectors;
  long long vectors;
  long long part;     // vectors of every rank's slice but the last one's
  long long longest;  // the last rank's slice, which takes the remainder
  long long myStart;
  long long myLength;
  uint32_t epoch;
  int slot;
  int previous;
  long long first;   // the thread's index in the grid-wide loops (spread_index)
  long long stride;  // the grid's threads
  long long sliceVectors;
};

template <typename T>
__device__ __forceinline__ Lamport2Call lamport2_call(const RowCall& c, const FusionLayout& layout,
                                                      const FusionControl* control, int rank,
                                                      int world) {
  Lamport2Call k;
  k.rowVectors = c.hidden / Vec<T>::lanes;
  k.vectors = c.tokens * k.rowVectors;
  k.part = k.vectors / world;
  k.longest = k.vectors - (world - 1) * k.part;
  k.myStart = rank * k.part;
  k.myLength = rank == world - 1 ? k.vectors - k.myStart : k.part;
  k.epoch = control->lamport2Epoch[blockIdx.x] + 1;
  k.slot = k.epoch % 3;
  k.previous = (k.epoch + 2) % 3;
  k.first = spread_index();
  k.stride = (long long)gridDim.x * blockDim.x;
  k.sliceVectors = layout.sliceStride / 16;
  return k;
}

// Scatters `sends` vectors of the input, from vector `shift` on (wrapping around the call's end),
// each to its slice owner's scatter slots, a few loads in flight before the stores.
template <typename T>
__device__ __forceinline__ void lamport2_scatter(const RowCall& c, const FusionPeers& peers,
                                                 const FusionLayout& layout, const Lamport2Call& k,
                                                 int rank, int world, long long shift,
                                                 long long sends) {
  constexpr int BATCH = 4;
  const uint4* input = reinterpret_cast<const uint4*>(c.input);
  for (long long base = k.first; base < sends; base += BATCH * k.stride) {
    uint4 x[BATCH];
    long long v[BATCH];
#pragma unroll
    for (int b = 0; b < BATCH; ++b) {
      const long long j = base + b * k.stride;
      v[b] = j + shift < k.vectors ? j + shift : j + shift - k.vectors;
      if (j < sends) x[b] = lamport_clean<T>(input[v[b]]);
    }
#pragma unroll
    for (int b = 0; b < BATCH; ++b) {
      if (base + b * k.stride < sends) {
        const int owner = slice_owner(v[b], k.part, world);
        st_volatile_v4(slice_area(peers.base[owner], layout, world, 0, k.slot, rank) +
                           (v[b] - owner * k.part),
                       x[b]);
      }
    }
  }
}

// Refills the previous call's scatter and gather slots (this rank's own entries only if
// `ownEntries`) with the sentinel, up to the longest slice that call held.
template <typename T>
__device__ __forceinline__ void lamport2_refill(char* self, const FusionLayout& layout,
                                                const FusionControl* control, const Lamport2Call& k,
                                                int rank, int world, bool ownEntries) {
  const uint32_t s = Vec<T>::sentinel;
  const uint4 empty = make_uint4(s, s, s, s);
  const long long previousLongest = control->lamport2Vectors[blockIdx.x][k.previous];
  for (int area = 0; area < 2; ++area) {
    uint4* stale = slice_area(self, layout, world, area, k.previous, 0);
    for (int r = 0; r < world; ++r) {
      if (r == rank && !ownEntries) continue;
      for (long long i = k.first; i < previousLongest; i += k.stride) {
        st_volatile_v4(stale + r * k.sliceVectors + i, empty);
      }
    }
  }
}

// Records the call in the per-block state, for every block of the widest grid (this block's and
// those its grid lacks), so that the next call finds it on either grid and either kernel.
__device__ __forceinline__ void lamport2_keep_state(FusionControl* control, const Lamport2Call& k,
                                                    bool ownEntries) {
  __syncthreads();  // every thread has read this block's control words
  if (threadIdx.x == 0) {
    for (int b = blockIdx.x; b < LAMPORT2_MAX_BLOCKS; b += gridDim.x) {
      control->lamport2Vectors[b][k.slot] = k.longest;
      control->lamport2OwnEntries[b][k.slot] = ownEntries;
      control->lamport2Epoch[b] = k.epoch;
    }
  }
}

template <typename T>
__device__ void fused_lamport2(const RowCall& c, const FusionPeers& peers, const FusionLayout& layout,
                               FusionControl* control, int rank, int world) {
  constexpr int L = Vec<T>::lanes;
  constexpr int K = SPREAD_ROW_VECTORS;
  wait_for_previous_grid();
  const Lamport2Call k = lamport2_call<T>(c, layout, control, rank, world);
  char* self = peers.base[rank];

  // Scatter: vector v to its slice owner. Each rank starts at its own slice, so that the ranks
  // write to different owners rather than all to one.
  lamport2_scatter<T>(c, peers, layout, k, rank, world, k.myStart, k.vectors);
  // Refill the previous call's slots while this call's slices travel; a previous call of own rows
  // left this rank's own entries empty, and refilling them again costs what it always did.
  lamport2_refill<T>(self, layout, control, k, rank, world, true);

  // Reduce this rank's slice into residualOut (sum + residual, rounded to T) and push it into
  // every rank's gather slots, this rank's own included.
  const uint4* scattered = slice_area(self, layout, world, 0, k.slot, 0);
  const uint4* residualIn = reinterpret_cast<const uint4*>(c.residualIn);
  for (long long i = k.first; i < k.myLength; i += k.stride) {
    const uint4 residualVector = residualIn[k.myStart + i];
    uint4 vals[FUSION_MAX_RANKS];
    wait_all_ranks<T>(scattered + i, k.sliceVectors, world, vals);
    float acc[L];
#pragma unroll
    for (int r = 0; r < FUSION_MAX_RANKS; ++r) {
      if (r < world) add_vector<T>(acc, vals[r], r == 0, !c.fp32Accumulate);
    }
    float residual[L];
    Vec<T>::unpack(residualVector, residual);
#pragma unroll
    for (int l = 0; l < L; ++l) acc[l] += residual[l];
    const uint4 finished = lamport_clean<T>(Vec<T>::pack(acc));
    for (int p = 0; p < world; ++p) {
      const int peer = (rank + p) % world;
      st_volatile_v4(slice_area(peers.base[peer], layout, world, 1, k.slot, rank) + i, finished);
    }
  }

  // Normalize every row from the gathered residualOut slices.
  const uint4* gathered = slice_area(self, layout, world, 1, k.slot, 0);
  auto gatheredVector = [&](long long g) {
    const int owner = slice_owner(g, k.part, world);
    return gathered + owner * k.sliceVectors + (g - owner * k.part);
  };
  const int rowVectors = k.rowVectors;
  const bool inRegisters = rowVectors <= K * (int)blockDim.x;
  for (long long row = blockIdx.x; row < c.tokens; row += gridDim.x) {
    const long long rowStart = row * rowVectors;
    if (inRegisters) {
      const int mine = row_vectors_of_thread(rowVectors);
      uint4 gammaVectors[K];
      load_gamma<K>(c, gammaVectors, mine);
      uint4 vals[1][K];
      // The copies of one row may come from two owners; each vector's address is its own.
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (k < mine) vals[0][k] = ld_volatile_v4(gatheredVector(rowStart + threadIdx.x + k * blockDim.x));
      }
      for (;;) {
        bool pending = false;
#pragma unroll
        for (int k = 0; k < K; ++k) {
          if (k < mine && lamport_empty<T>(vals[0][k])) {
            vals[0][k] = ld_volatile_v4(gatheredVector(rowStart + threadIdx.x + k * blockDim.x));
            pending = pending || lamport_empty<T>(vals[0][k]);
          }
        }
        if (!pending) break;
      }
      float residual[K][L];
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (k < mine) Vec<T>::unpack(vals[0][k], residual[k]);
      }
      finish_row_in_registers<T, K>(c, row, residual, gammaVectors, mine);
    } else {
      const long long rowBytes = (long long)c.hidden * sizeof(T);
      // The gathered vectors are residualOut already: no residual to add.
      normalize_row<T, false>(
          c, row,
          [&](int v, float (&acc)[L]) {
            const uint4* src = gatheredVector(rowStart + v);
            uint4 x;
            do {
              x = ld_volatile_v4(src);
            } while (lamport_empty<T>(x));
            Vec<T>::unpack(x, acc);
          },
          c.residualOut + row * rowBytes, c.output + row * c.hidden * out_bytes(c, sizeof(T)));
    }
  }
  lamport2_keep_state(control, k, true);
}

// fused_lamport2_own -------------------------------------------------------------------------

// The Lamport two-shot where a call's slices are whole rows, on one or two ranks: the row's block
// reduces the rank's own rows itself, and the scatter sends the other rank's slice only. The host
// launches it only for such calls.
template <typename T>
__device__ void fused_lamport2_own(const RowCall& c, const FusionPeers& peers, const FusionLayout& layout,
                                   FusionControl* control, int rank, int world) {
  constexpr int L = Vec<T>::lanes;
  constexpr int K = SPREAD_ROW_VECTORS;
  const int rowVectors = c.hidden / L;
  if (world > 2 || rowVectors > K * (int)blockDim.x || c.tokens % world != 0) {
    // Not a call of own rows (more ranks, slices that split rows, or rows longer than the block's
    // registers), which the host never launches: fail the launch rather than leave the outputs
    // unwritten. (A fallback to fused_lamport2, even out of line, costs this kernel registers it
    // cannot spare.)
    __trap();
  }
  wait_for_previous_grid();
  const Lamport2Call k = lamport2_call<T>(c, layout, control, rank, world);
  char* self = peers.base[rank];
  const bool paired = world == 2;
  const int peer = 1 - rank;

  // Scatter the other rank's slice only; refill this rank's own entries only where the previous
  // call wrote them.
  lamport2_scatter<T>(c, peers, layout, k, rank, world, k.myStart + k.myLength,
                      k.vectors - k.myLength);
  lamport2_refill<T>(self, layout, control, k, rank, world,
                     control->lamport2OwnEntries[blockIdx.x][k.previous]);

  // Every row lies in one slice. The block of one of this rank's rows sums, in rank order, the
  // rank's copy from the input and the other rank's from the scatter slots, adds the residual,
  // rounds to T, pushes each finished vector into the other rank's gather slots and keeps it for
  // the norm: what the spread reduce and the gather would deliver. The block of one of the other
  // rank's rows waits for it in the gather slots. With one rank every row is the rank's own. (On
  // two H100s this loop kept the kernel's gain only without spills at 128 registers a thread: the
  // copies share one array across the branches, and each vector is finished as soon as summed.)
  const long long peerStart = peer * k.part;
  const uint4* input = reinterpret_cast<const uint4*>(c.input);
  const uint4* residualIn = reinterpret_cast<const uint4*>(c.residualIn);
  const uint4* scattered = slice_area(self, layout, world, 0, k.slot, paired ? peer : 0);
  const uint4* gathered = slice_area(self, layout, world, 1, k.slot, paired ? peer : 0);
  uint4* gatherAtPeer = slice_area(peers.base[paired ? peer : rank], layout, world, 1, k.slot, rank);
  for (long long row = blockIdx.x; row < c.tokens; row += gridDim.x) {
    const long long rowStart = row * rowVectors;
    const int mine = row_vectors_of_thread(rowVectors);
    uint4 gammaVectors[K];
    load_gamma<K>(c, gammaVectors, mine);
    float residual[K][L];
    uint4 copy[1][K];
    if (rowStart >= k.myStart && rowStart < k.myStart + k.myLength) {
      const long long local = rowStart - k.myStart;
      uint4 own[K], residualVectors[K];
#pragma unroll
      for (int v = 0; v < K; ++v) {
        if (v < mine) {
          own[v] = lamport_clean<T>(input[rowStart + threadIdx.x + v * blockDim.x]);
          residualVectors[v] = residualIn[rowStart + threadIdx.x + v * blockDim.x];
        }
      }
      if (paired) {
        lamport_wait<T, 1, K>(reinterpret_cast<const char*>(scattered + local), 0, 0, copy, 1,
                              mine);
      }
#pragma unroll
      for (int v = 0; v < K; ++v) {
        if (v < mine) {
          float acc[L], r[L];
          if (paired) {
            add_vector<T>(acc, rank == 0 ? own[v] : copy[0][v], true, false);
            add_vector<T>(acc, rank == 0 ? copy[0][v] : own[v], false, !c.fp32Accumulate);
          } else {
            add_vector<T>(acc, own[v], true, !c.fp32Accumulate);
          }
          Vec<T>::unpack(residualVectors[v], r);
#pragma unroll
          for (int l = 0; l < L; ++l) acc[l] += r[l];
          const uint4 finished = lamport_clean<T>(Vec<T>::pack(acc));
          if (paired) st_volatile_v4(gatherAtPeer + local + threadIdx.x + v * blockDim.x, finished);
          Vec<T>::unpack(finished, residual[v]);
        }
      }
    } else {
      lamport_wait<T, 1, K>(reinterpret_cast<const char*>(gathered + (rowStart - peerStart)), 0, 0,
                            copy, 1, mine);
#pragma unroll
      for (int v = 0; v < K; ++v) {
        if (v < mine) Vec<T>::unpack(copy[0][v], residual[v]);
      }
    }
    finish_row_in_registers<T, K>(c, row, residual, gammaVectors, mine);
  }
  lamport2_keep_state(control, k, false);
}

// One kernel entry of the fused all-reduce family: every one takes the same arguments. The
// structures stay in the launch's parameter space (__grid_constant__), as the plain kernels' do:
// a by-value parameter indexed at run time (peers.base[peer]) is first copied to every thread's
// stack.
#define FUSION_ENTRY(T, NAME, KERNEL, THREADS, MIN_BLOCKS)                                          \
  extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) KERNEL##_##NAME(               \
      const __grid_constant__ RowCall c, const __grid_constant__ FusionPeers peers,              \
      const __grid_constant__ FusionLayout layout, FusionControl* control, int rank,             \
      int world) {                                                                               \
    KERNEL<T>(c, peers, layout, control, rank, fusion_world(world));                             \
  }

#define FUSION_KERNELS(T, NAME)                                                                  \
  extern "C" __global__ void __launch_bounds__(FUSION_THREADS, 1)                                \
      add_rmsnorm_##NAME(const __grid_constant__ RowCall c) {                                    \
    add_rmsnorm<T>(c);                                                                           \
  }                                                                                              \
  FUSION_ENTRY(T, NAME, fused_oneshot, FUSION_THREADS, 1)                                        \
  FUSION_ENTRY(T, NAME, fused_twoshot, FUSION_THREADS, 1)                                        \
  FUSION_ENTRY(T, NAME, fused_lamport, FUSION_THREADS, 1)                                        \
  FUSION_ENTRY(T, NAME, fused_lamport_spread, FUSION_THREADS, 1)                                 \
  FUSION_ENTRY(T, NAME, fused_lamport_cluster, CLUSTER_THREADS, 2)                               \
  FUSION_ENTRY(T, NAME, fused_lamport2, FUSION_THREADS, 1)                                       \
  FUSION_ENTRY(T, NAME, fused_lamport2_own, FUSION_THREADS, 1)

FUSION_KERNELS(__nv_bfloat16, bf16)
FUSION_KERNELS(__half, fp16)
FUSION_KERNELS(float, fp32)
