// All-gather and reduce-scatter kernels of gpucomm's CUDA backend, over CUDA IPC peer memory.
//
// The communicator's gather memory is a second peer-memory allocation per rank with the layout of
// allreduce.cu's PeerLayout; these kernels use three of its regions:
//
//   data flags     uint32 [MAX_BLOCKS][MAX_RANKS]   (PeerLayout.oneshotFlagsOffset)
//   start flags    uint32 [3][MAX_BLOCKS][MAX_RANKS] (PeerLayout.twoshotFlagsOffset): set 0 for the
//                  kernels' start barrier, set 1 for the copy-engine start barrier, set 2 for the
//                  copy-engine data barrier (row 0 only)
//   receive slots  [MAX_RANKS][slotBytes]            (PeerLayout.oneshotRecvOffset): slot s of
//                  rank r holds what rank s sent to rank r in the current piece
//
// A caller's buffers are never read remotely: each rank pushes its bytes into the peers' receive
// slots (with its threads, or with the copy engines through cuMemcpyAsync on the peer mapping), and
// each rank reads only its own memory. A start barrier (every peer has entered this piece, so it
// has finished reading its slots for the previous one) precedes the pushes, and a data barrier
// (every peer has pushed) precedes the reads, so one slot per sender suffices and the kernel and
// copy-engine variants may follow each other in any order. Epochs live in device memory (Control)
// and are advanced by the kernels, so CUDA-graph replays see fresh epochs.
//
//   allgather_push        start barrier; push this rank's bytes to every peer and to its own
//                         output; data barrier; copy every peer's slot into the output.
//   reducescatter_push    start barrier; push shard q of the input to rank q; data barrier;
//                         sum every rank's shard in rank order 0..n-1 in fp32.
//   ce_start              the copy-engine variant's start barrier (one block).
//   ce_arrived            the copy-engine data barrier after the engines' pushes (one block).
//   ce_reduce_<dtype>     the copy-engine data barrier, then the rank-order fp32 sum.
//
// Sums read ranks in the fixed order 0..n-1 and accumulate in fp32, so both variants produce
// bit-identical results (and the same as the CPU backend's). Sizes are whole 16-byte vectors.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#define GPUCOMM_MAX_RANKS 8
#define GPUCOMM_MAX_BLOCKS 160

struct PeerBases {
  char* base[GPUCOMM_MAX_RANKS];
};

// Offsets inside every rank's gather memory; identical on all ranks.
struct GatherLayout {
  long long dataFlagsOffset;
  long long startFlagsOffset;
  long long slotsOffset;
  long long slotBytes;
};

// Per-communicator epochs in this rank's own memory.
struct GatherControl {
  uint32_t kernelEpoch[GPUCOMM_MAX_BLOCKS];
  uint32_t copyEngineEpoch;
};

#define FLAG_SET_WORDS (GPUCOMM_MAX_BLOCKS * GPUCOMM_MAX_RANKS)

__device__ __forceinline__ void fence_acq_rel_sys() {
  asm volatile("fence.acq_rel.sys;" ::: "memory");
}

__device__ __forceinline__ void st_relaxed_sys(uint32_t* addr, uint32_t value) {
  asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(addr), "r"(value) : "memory");
}

__device__ __forceinline__ void st_release_sys(uint32_t* addr, uint32_t value) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(addr), "r"(value) : "memory");
}

__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* addr) {
  uint32_t value;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(value) : "l"(addr) : "memory");
  return value;
}

__device__ __forceinline__ uint32_t ld_relaxed_sys(const uint32_t* addr) {
  uint32_t value;
  asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(value) : "l"(addr) : "memory");
  return value;
}

__device__ __forceinline__ uint32_t* flag_word(char* base, long long setOffset, int row, int rank) {
  return reinterpret_cast<uint32_t*>(base + setOffset) + row * GPUCOMM_MAX_RANKS + rank;
}

// Thread t < world (t != rank) writes `epoch` into rank t's row `row` at this rank's column.
// With `release`, everything this block wrote before the preceding __syncthreads is visible to
// rank t before the flag is.
__device__ __forceinline__ void raise(const PeerBases& peers, long long setOffset, int row,
                                      int rank, int world, uint32_t epoch, bool release) {
  int t = threadIdx.x;
  if (t < world && t != rank) {
    uint32_t* flag = flag_word(peers.base[t], setOffset, row, rank);
    if (release) {
      fence_acq_rel_sys();
      st_release_sys(flag, epoch);
    } else {
      st_relaxed_sys(flag, epoch);
    }
  }
}

// Thread t < world (t != rank) waits until rank t's flag in this rank's row has reached `epoch`
// (wrap-safe: epochs only grow); then the whole block proceeds.
__device__ __forceinline__ void await(const PeerBases& peers, long long setOffset, int row,
                                      int rank, int world, uint32_t epoch, bool acquire) {
  int t = threadIdx.x;
  if (t < world && t != rank) {
    const uint32_t* flag = flag_word(peers.base[rank], setOffset, row, t);
    if (acquire) {
      while (static_cast<int>(ld_acquire_sys(flag) - epoch) < 0) {
      }
    } else {
      while (static_cast<int>(ld_relaxed_sys(flag) - epoch) < 0) {
      }
    }
  }
  __syncthreads();
}

__device__ __forceinline__ char* slot(const PeerBases& peers, const GatherLayout& layout,
                                      int owner, int sender) {
  return peers.base[owner] + layout.slotsOffset + sender * layout.slotBytes;
}

// This block's share of `vectors` 16-byte vectors: the same on every rank (fixed grid).
__device__ __forceinline__ void block_range(long long vectors, long long& first, long long& end) {
  long long perBlock = (vectors + gridDim.x - 1) / gridDim.x;
  first = min(vectors, perBlock * blockIdx.x);
  end = min(vectors, first + perBlock);
}

__device__ __forceinline__ uint32_t next_kernel_epoch(GatherControl* control) {
  __shared__ uint32_t epoch;
  if (threadIdx.x == 0) {
    epoch = control->kernelEpoch[blockIdx.x] + 1;
    control->kernelEpoch[blockIdx.x] = epoch;
  }
  __syncthreads();
  return epoch;
}

// One piece of an all-gather: `bytes` of this rank's input (starting at `input`) land at
// `output + r * outputStride` for every rank r.
extern "C" __global__ void __launch_bounds__(512, 1)
    gpucomm_allgather_push(const char* input, char* output, long long bytes,
                           long long outputStride, PeerBases peers, GatherLayout layout,
                           GatherControl* control, int rank, int world) {
  uint32_t epoch = next_kernel_epoch(control);
  raise(peers, layout.startFlagsOffset, blockIdx.x, rank, world, epoch, false);
  await(peers, layout.startFlagsOffset, blockIdx.x, rank, world, epoch, false);
  long long first, end;
  block_range(bytes / 16, first, end);
  const uint4* in = reinterpret_cast<const uint4*>(input);
  uint4* own = reinterpret_cast<uint4*>(output + rank * outputStride);
  for (long long v = first + threadIdx.x; v < end; v += blockDim.x) {
    uint4 value = __ldg(in + v);
    own[v] = value;
    for (int step = 1; step < world; ++step) {
      int peer = (rank + step) % world;
      reinterpret_cast<uint4*>(slot(peers, layout, peer, rank))[v] = value;
    }
  }
  __syncthreads();
  raise(peers, layout.dataFlagsOffset, blockIdx.x, rank, world, epoch, true);
  await(peers, layout.dataFlagsOffset, blockIdx.x, rank, world, epoch, true);
  for (int step = 1; step < world; ++step) {
    int sender = (rank + step) % world;
    const uint4* from = reinterpret_cast<const uint4*>(slot(peers, layout, rank, sender));
    uint4* to = reinterpret_cast<uint4*>(output + sender * outputStride);
    for (long long v = first + threadIdx.x; v < end; v += blockDim.x) {
      to[v] = __ldcg(from + v);
    }
  }
}

template <typename T>
struct Lanes;

template <>
struct Lanes<__nv_bfloat16> {
  static constexpr int count = 8;
  __device__ static void add(float (&acc)[8], uint4 v, bool first) {
    const __nv_bfloat162* p = reinterpret_cast<const __nv_bfloat162*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float2 f = __bfloat1622float2(p[i]);
      acc[2 * i] = first ? f.x : acc[2 * i] + f.x;
      acc[2 * i + 1] = first ? f.y : acc[2 * i + 1] + f.y;
    }
  }
  __device__ static uint4 pack(const float (&acc)[8]) {
    uint4 v;
    __nv_bfloat162* p = reinterpret_cast<__nv_bfloat162*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) p[i] = __floats2bfloat162_rn(acc[2 * i], acc[2 * i + 1]);
    return v;
  }
};

template <>
struct Lanes<__half> {
  static constexpr int count = 8;
  __device__ static void add(float (&acc)[8], uint4 v, bool first) {
    const __half2* p = reinterpret_cast<const __half2*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float2 f = __half22float2(p[i]);
      acc[2 * i] = first ? f.x : acc[2 * i] + f.x;
      acc[2 * i + 1] = first ? f.y : acc[2 * i + 1] + f.y;
    }
  }
  __device__ static uint4 pack(const float (&acc)[8]) {
    uint4 v;
    __half2* p = reinterpret_cast<__half2*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) p[i] = __floats2half2_rn(acc[2 * i], acc[2 * i + 1]);
    return v;
  }
};

template <>
struct Lanes<float> {
  static constexpr int count = 4;
  __device__ static void add(float (&acc)[4], uint4 v, bool first) {
    float f[4] = {__uint_as_float(v.x), __uint_as_float(v.y), __uint_as_float(v.z),
                  __uint_as_float(v.w)};
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[i] = first ? f[i] : acc[i] + f[i];
  }
  __device__ static uint4 pack(const float (&acc)[4]) {
    return make_uint4(__float_as_uint(acc[0]), __float_as_uint(acc[1]), __float_as_uint(acc[2]),
                      __float_as_uint(acc[3]));
  }
};

// output[v] = sum over ranks r = 0..world-1 of (r == rank ? ownShard : slot r)[v], in fp32.
template <typename T>
__device__ __forceinline__ void reduce_slots(const char* ownShard, char* output,
                                             const PeerBases& peers, const GatherLayout& layout,
                                             int rank, int world, long long first,
                                             long long end) {
  for (long long v = first + threadIdx.x; v < end; v += blockDim.x) {
    float acc[Lanes<T>::count];
    for (int r = 0; r < world; ++r) {
      uint4 value = r == rank ? __ldg(reinterpret_cast<const uint4*>(ownShard) + v)
                              : __ldcg(reinterpret_cast<const uint4*>(
                                           slot(peers, layout, rank, r)) +
                                       v);
      Lanes<T>::add(acc, value, r == 0);
    }
    reinterpret_cast<uint4*>(output)[v] = Lanes<T>::pack(acc);
  }
}

// One piece of a reduce-scatter: shard q of this piece starts at `input + q * inputStride` and is
// `bytes` long; this rank's reduced shard lands at `output`.
template <typename T>
__device__ __forceinline__ void reducescatter_push(const char* input, char* output,
                                                   long long bytes, long long inputStride,
                                                   const PeerBases& peers,
                                                   const GatherLayout& layout,
                                                   GatherControl* control, int rank, int world) {
  uint32_t epoch = next_kernel_epoch(control);
  raise(peers, layout.startFlagsOffset, blockIdx.x, rank, world, epoch, false);
  await(peers, layout.startFlagsOffset, blockIdx.x, rank, world, epoch, false);
  long long first, end;
  block_range(bytes / 16, first, end);
  for (int step = 1; step < world; ++step) {
    int peer = (rank + step) % world;
    const uint4* from = reinterpret_cast<const uint4*>(input + peer * inputStride);
    uint4* to = reinterpret_cast<uint4*>(slot(peers, layout, peer, rank));
    for (long long v = first + threadIdx.x; v < end; v += blockDim.x) {
      to[v] = __ldg(from + v);
    }
  }
  __syncthreads();
  raise(peers, layout.dataFlagsOffset, blockIdx.x, rank, world, epoch, true);
  await(peers, layout.dataFlagsOffset, blockIdx.x, rank, world, epoch, true);
  reduce_slots<T>(input + rank * inputStride, output, peers, layout, rank, world, first, end);
}

// The copy-engine variant's start barrier: advances its epoch and meets every peer.
extern "C" __global__ void gpucomm_ce_start(PeerBases peers, GatherLayout layout,
                                            GatherControl* control, int rank, int world) {
  __shared__ uint32_t epoch;
  if (threadIdx.x == 0) {
    epoch = control->copyEngineEpoch + 1;
    control->copyEngineEpoch = epoch;
  }
  __syncthreads();
  long long set = layout.startFlagsOffset + 4LL * FLAG_SET_WORDS;
  raise(peers, set, 0, rank, world, epoch, false);
  await(peers, set, 0, rank, world, epoch, false);
}

// The copy-engine data barrier: the engines' pushes of this rank precede this kernel in stream
// order; it tells the peers, and waits until every peer has said the same.
__device__ __forceinline__ void ce_data_barrier(const PeerBases& peers, const GatherLayout& layout,
                                                const GatherControl* control, int rank,
                                                int world) {
  uint32_t epoch = *reinterpret_cast<const volatile uint32_t*>(&control->copyEngineEpoch);
  long long set = layout.startFlagsOffset + 8LL * FLAG_SET_WORDS;
  if (blockIdx.x == 0) {
    raise(peers, set, 0, rank, world, epoch, true);
  }
  await(peers, set, 0, rank, world, epoch, true);
}

extern "C" __global__ void gpucomm_ce_arrived(PeerBases peers, GatherLayout layout,
                                              GatherControl* control, int rank, int world) {
  ce_data_barrier(peers, layout, control, rank, world);
}

template <typename T>
__device__ __forceinline__ void ce_reduce(const char* ownShard, char* output, long long bytes,
                                          const PeerBases& peers, const GatherLayout& layout,
                                          const GatherControl* control, int rank, int world) {
  ce_data_barrier(peers, layout, control, rank, world);
  long long first, end;
  block_range(bytes / 16, first, end);
  reduce_slots<T>(ownShard, output, peers, layout, rank, world, first, end);
}

#define GPUCOMM_DTYPE_KERNELS(NAME, T)                                                          \
  extern "C" __global__ void __launch_bounds__(512, 1) gpucomm_reducescatter_push_##NAME(      \
      const char* input, char* output, long long bytes, long long inputStride, PeerBases peers, \
      GatherLayout layout, GatherControl* control, int rank, int world) {                        \
    reducescatter_push<T>(input, output, bytes, inputStride, peers, layout, control, rank,      \
                          world);                                                                \
  }                                                                                              \
  extern "C" __global__ void __launch_bounds__(512, 1) gpucomm_ce_reduce_##NAME(                \
      const char* ownShard, char* output, long long bytes, PeerBases peers, GatherLayout layout, \
      const GatherControl* control, int rank, int world) {                                       \
    ce_reduce<T>(ownShard, output, bytes, peers, layout, control, rank, world);                  \
  }

GPUCOMM_DTYPE_KERNELS(bf16, __nv_bfloat16)
GPUCOMM_DTYPE_KERNELS(fp16, __half)
GPUCOMM_DTYPE_KERNELS(fp32, float)
