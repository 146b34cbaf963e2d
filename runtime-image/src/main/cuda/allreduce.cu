// All-reduce kernels of gpucomm's CUDA backend, over CUDA IPC peer memory.
//
// Every rank of a node owns one peer-memory allocation with the same layout (PeerLayout) and
// maps the others' through CUDA IPC; PeerBases holds the base address of every rank's
// allocation as seen from this rank (its own included). The kernels never read the caller's
// buffers remotely: each rank pushes its own input into the peers' receive areas, so eager calls
// need no staging copy and CUDA-graph replays need no buffer registration.
//
//   oneshot   push the whole input to every peer, one barrier, reduce locally.
//   twoshot   push slice r to rank r, barrier, reduce own slice, barrier, pull reduced slices.
//   lamport   flag-free one-shot: receive areas hold a sentinel until data lands, so a rank polls
//             its own memory instead of waiting on flags; three slots rotate.
//
// Summation order is fixed (rank 0, 1, ..., n-1, accumulated in fp32), so every rank and every
// algorithm produces bit-identical results for the same inputs.
//
// Barrier flags are 32-bit words with exactly one writer each: flags[parity][barrier][block][peer]
// in the waiting rank's signal area. Epochs live in device memory (Control) and are advanced by
// the kernels themselves, so CUDA-graph replays see fresh epochs. Consecutive calls alternate
// parity, so a fast peer that has already moved on to the next call never overwrites a flag that a
// slow block is still waiting for. Flags that order data between GPUs use st.release.sys and
// ld.acquire.sys.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#define GPUCOMM_MAX_RANKS 8
#define GPUCOMM_MAX_BLOCKS 64
#define GPUCOMM_THREADS 512
#define GPUCOMM_UNROLL 4
#define GPUCOMM_LAMPORT_SENTINEL 0x80008000u

struct PeerBases {
  char* base[GPUCOMM_MAX_RANKS];
};

// Byte offsets inside every rank's peer-memory allocation; identical on all ranks.
struct PeerLayout {
  long long signalOffset;      // uint32 flags[2 parity][2 barrier][MAX_BLOCKS][MAX_RANKS]
  long long checkOffset;       // uint32 check[MAX_RANKS], the peer-memory write/read check
  long long recvOffset;        // recv[2 parity][world][recvRankStride]
  long long recvRankStride;
  long long recvParityStride;
  long long scratchOffset;     // two-shot: this rank's reduced slice
  long long lamportOffset;     // lamport[3 slot][world][lamportRankStride]
  long long lamportRankStride;
  long long lamportSlotStride;
};

// Per-communicator state in this rank's own (not shared) device memory.
struct Control {
  uint32_t epoch;              // flag kernels completed
  uint32_t arrived;            // blocks of the running flag kernel that have finished
  uint32_t lamportEpoch;       // lamport kernels completed
  uint32_t lamportArrived;
  long long lamportVectors[3]; // vectors written into each lamport slot by its last use
};

// ---------------------------------------------------------------------------------------------
// Memory-ordering primitives.

__device__ __forceinline__ void st_release_sys(uint32_t* addr, uint32_t value) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(addr), "r"(value) : "memory");
}

__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* addr) {
  uint32_t value;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(value) : "l"(addr) : "memory");
  return value;
}

__device__ __forceinline__ uint4 ld_volatile_v4(const uint4* addr) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(addr)
               : "memory");
  return v;
}

__device__ __forceinline__ void st_volatile_v4(uint4* addr, uint4 v) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(addr), "r"(v.x),
               "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

// ---------------------------------------------------------------------------------------------
// 16-byte vectors of one element type, accumulated in fp32.

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
    const float* p = reinterpret_cast<const float*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[i] = first ? p[i] : acc[i] + p[i];
  }
  __device__ static uint4 pack(const float (&acc)[4]) {
    uint4 v;
    float* p = reinterpret_cast<float*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) p[i] = acc[i];
    return v;
  }
};

// Sums vals[0..world) in rank order and packs the result.
template <typename T>
__device__ __forceinline__ uint4 reduce_in_rank_order(const uint4 (&vals)[GPUCOMM_MAX_RANKS],
                                                      int world) {
  float acc[Lanes<T>::count];
#pragma unroll
  for (int q = 0; q < GPUCOMM_MAX_RANKS; ++q) {
    if (q < world) Lanes<T>::add(acc, vals[q], q == 0);
  }
  return Lanes<T>::pack(acc);
}

// ---------------------------------------------------------------------------------------------
// The caller's buffers: `bytes` need not be a multiple of 16; the last vector may be partial.
// Partial vectors are read element by element and padded with zeros, never read past the end.

__device__ __forceinline__ uint4 load_input(const char* input, long long v, long long fullVectors,
                                            int tailBytes) {
  if (v < fullVectors) return reinterpret_cast<const uint4*>(input)[v];
  uint4 x = make_uint4(0, 0, 0, 0);
  const uint16_t* src = reinterpret_cast<const uint16_t*>(input + v * 16);
  uint16_t* dst = reinterpret_cast<uint16_t*>(&x);
  for (int i = 0; i < tailBytes / 2; ++i) dst[i] = src[i];
  return x;
}

__device__ __forceinline__ void store_output(char* output, long long v, long long fullVectors,
                                             int tailBytes, uint4 x) {
  if (v < fullVectors) {
    reinterpret_cast<uint4*>(output)[v] = x;
    return;
  }
  uint16_t* dst = reinterpret_cast<uint16_t*>(output + v * 16);
  const uint16_t* src = reinterpret_cast<const uint16_t*>(&x);
  for (int i = 0; i < tailBytes / 2; ++i) dst[i] = src[i];
}

// ---------------------------------------------------------------------------------------------
// Peer-memory addressing.

__device__ __forceinline__ uint32_t* flag_word(char* base, const PeerLayout& layout, int parity,
                                               int barrier, int block, int peer) {
  uint32_t* flags = reinterpret_cast<uint32_t*>(base + layout.signalOffset);
  return flags + (((parity * 2 + barrier) * GPUCOMM_MAX_BLOCKS + block) * GPUCOMM_MAX_RANKS + peer);
}

__device__ __forceinline__ uint4* recv_area(char* base, const PeerLayout& layout, int parity,
                                            int sender) {
  return reinterpret_cast<uint4*>(base + layout.recvOffset + parity * layout.recvParityStride +
                                  sender * layout.recvRankStride);
}

__device__ __forceinline__ uint4* lamport_area(char* base, const PeerLayout& layout, int slot,
                                               int sender) {
  return reinterpret_cast<uint4*>(base + layout.lamportOffset + slot * layout.lamportSlotStride +
                                  sender * layout.lamportRankStride);
}

__device__ __forceinline__ int peer_at(int rank, int step, int world) {
  int peer = rank + step;
  return peer >= world ? peer - world : peer;
}

// Block blockIdx.x of every rank meets here. Thread t stores the epoch into rank t's flag for this
// rank, then waits until rank t has stored it into this rank's flag. The release/acquire pair makes
// every write the block issued before the barrier visible to the peers' blocks after it.
__device__ __forceinline__ void cross_gpu_barrier(const PeerBases& peers, const PeerLayout& layout,
                                                  int parity, int barrier, uint32_t epoch,
                                                  int rank, int world) {
  __syncthreads();
  if (threadIdx.x < world) {
    st_release_sys(flag_word(peers.base[threadIdx.x], layout, parity, barrier, blockIdx.x, rank),
                   epoch);
    const uint32_t* mine =
        flag_word(peers.base[rank], layout, parity, barrier, blockIdx.x, threadIdx.x);
    while (ld_acquire_sys(mine) != epoch) {
    }
  }
  __syncthreads();
}

// The last block to finish advances the epoch; every block read it before arriving here, and the
// next kernel on the stream starts only after this one ends.
__device__ __forceinline__ void advance_epoch(uint32_t* epochWord, uint32_t* arrivedWord,
                                              uint32_t newEpoch) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(arrivedWord, 1u) == gridDim.x - 1) {
      *arrivedWord = 0;
      *epochWord = newEpoch;
      __threadfence();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// One-shot: push, barrier, reduce locally.

template <typename T>
__device__ void oneshot(const char* input, char* output, long long bytes, const PeerBases& peers,
                        const PeerLayout& layout, Control* control, int rank, int world) {
  const long long fullVectors = bytes >> 4;
  const int tailBytes = static_cast<int>(bytes & 15);
  const long long vectors = fullVectors + (tailBytes ? 1 : 0);
  const uint32_t epoch = control->epoch + 1;
  const int parity = epoch & 1;
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;

  for (long long v = first; v < vectors; v += stride * GPUCOMM_UNROLL) {
    uint4 x[GPUCOMM_UNROLL];
#pragma unroll
    for (int u = 0; u < GPUCOMM_UNROLL; ++u) {
      long long w = v + u * stride;
      if (w < vectors) x[u] = load_input(input, w, fullVectors, tailBytes);
    }
#pragma unroll
    for (int step = 1; step < GPUCOMM_MAX_RANKS; ++step) {
      if (step < world) {
        uint4* dst = recv_area(peers.base[peer_at(rank, step, world)], layout, parity, rank);
#pragma unroll
        for (int u = 0; u < GPUCOMM_UNROLL; ++u) {
          long long w = v + u * stride;
          if (w < vectors) dst[w] = x[u];
        }
      }
    }
  }

  cross_gpu_barrier(peers, layout, parity, 0, epoch, rank, world);

  char* self = peers.base[rank];
  for (long long v = first; v < vectors; v += stride) {
    uint4 vals[GPUCOMM_MAX_RANKS];
#pragma unroll
    for (int q = 0; q < GPUCOMM_MAX_RANKS; ++q) {
      if (q < world) {
        vals[q] = q == rank ? load_input(input, v, fullVectors, tailBytes)
                            : __ldcg(recv_area(self, layout, parity, q) + v);
      }
    }
    store_output(output, v, fullVectors, tailBytes, reduce_in_rank_order<T>(vals, world));
  }

  advance_epoch(&control->epoch, &control->arrived, epoch);
}

// ---------------------------------------------------------------------------------------------
// Two-shot: scatter slices, barrier, reduce own slice, barrier, gather reduced slices.
// Slice r covers vectors [r * part, r * part + len(r)); the last rank takes the remainder.

template <typename T>
__device__ void twoshot(const char* input, char* output, long long bytes, const PeerBases& peers,
                        const PeerLayout& layout, Control* control, int rank, int world) {
  const long long fullVectors = bytes >> 4;
  const int tailBytes = static_cast<int>(bytes & 15);
  const long long vectors = fullVectors + (tailBytes ? 1 : 0);
  const long long part = vectors / world;
  const uint32_t epoch = control->epoch + 1;
  const int parity = epoch & 1;
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;

  // Scatter: slice r of this rank's input goes to rank r.
#pragma unroll 1
  for (int step = 1; step < world; ++step) {
    const int target = peer_at(rank, step, world);
    const long long start = target * part;
    const long long length = target == world - 1 ? vectors - start : part;
    uint4* dst = recv_area(peers.base[target], layout, parity, rank);
    for (long long i = first; i < length; i += stride * GPUCOMM_UNROLL) {
      uint4 x[GPUCOMM_UNROLL];
#pragma unroll
      for (int u = 0; u < GPUCOMM_UNROLL; ++u) {
        long long j = i + u * stride;
        if (j < length) x[u] = load_input(input, start + j, fullVectors, tailBytes);
      }
#pragma unroll
      for (int u = 0; u < GPUCOMM_UNROLL; ++u) {
        long long j = i + u * stride;
        if (j < length) dst[j] = x[u];
      }
    }
  }

  cross_gpu_barrier(peers, layout, parity, 0, epoch, rank, world);

  // Reduce this rank's slice into the output and into the scratch area the peers gather from.
  char* self = peers.base[rank];
  {
    const long long start = rank * part;
    const long long length = rank == world - 1 ? vectors - start : part;
    uint4* scratch = reinterpret_cast<uint4*>(self + layout.scratchOffset);
    for (long long i = first; i < length; i += stride) {
      uint4 vals[GPUCOMM_MAX_RANKS];
#pragma unroll
      for (int q = 0; q < GPUCOMM_MAX_RANKS; ++q) {
        if (q < world) {
          vals[q] = q == rank ? load_input(input, start + i, fullVectors, tailBytes)
                              : __ldcg(recv_area(self, layout, parity, q) + i);
        }
      }
      uint4 sum = reduce_in_rank_order<T>(vals, world);
      scratch[i] = sum;
      store_output(output, start + i, fullVectors, tailBytes, sum);
    }
  }

  cross_gpu_barrier(peers, layout, parity, 1, epoch, rank, world);

  // Gather: the same thread of the same block that reduced index i on rank r reads it here.
#pragma unroll 1
  for (int step = 1; step < world; ++step) {
    const int source = peer_at(rank, step, world);
    const long long start = source * part;
    const long long length = source == world - 1 ? vectors - start : part;
    const uint4* scratch = reinterpret_cast<const uint4*>(peers.base[source] + layout.scratchOffset);
    for (long long i = first; i < length; i += stride * GPUCOMM_UNROLL) {
      uint4 x[GPUCOMM_UNROLL];
#pragma unroll
      for (int u = 0; u < GPUCOMM_UNROLL; ++u) {
        long long j = i + u * stride;
        if (j < length) x[u] = __ldcg(scratch + j);
      }
#pragma unroll
      for (int u = 0; u < GPUCOMM_UNROLL; ++u) {
        long long j = i + u * stride;
        if (j < length) store_output(output, start + j, fullVectors, tailBytes, x[u]);
      }
    }
  }

  advance_epoch(&control->epoch, &control->arrived, epoch);
}

// ---------------------------------------------------------------------------------------------
// Lamport one-shot. Receive slots hold the sentinel word 0x80008000 (two bf16/fp16 -0.0 halves)
// until a peer's data lands; a data word equal to the sentinel is sent as 0 (+0.0 halves, or the
// fp32 denormal -4.6e-41 flushed to +0.0), identically on every rank. Slot e % 3 receives call e
// while the slot of call e - 1 is refilled with the sentinel: a peer can be at most one call ahead,
// so it never writes the slot being refilled.

__device__ __forceinline__ uint4 lamport_sanitize(uint4 x) {
  x.x = x.x == GPUCOMM_LAMPORT_SENTINEL ? 0u : x.x;
  x.y = x.y == GPUCOMM_LAMPORT_SENTINEL ? 0u : x.y;
  x.z = x.z == GPUCOMM_LAMPORT_SENTINEL ? 0u : x.z;
  x.w = x.w == GPUCOMM_LAMPORT_SENTINEL ? 0u : x.w;
  return x;
}

__device__ __forceinline__ bool lamport_pending(uint4 x) {
  return x.x == GPUCOMM_LAMPORT_SENTINEL || x.y == GPUCOMM_LAMPORT_SENTINEL ||
         x.z == GPUCOMM_LAMPORT_SENTINEL || x.w == GPUCOMM_LAMPORT_SENTINEL;
}

template <typename T>
__device__ void lamport(const char* input, char* output, long long bytes, const PeerBases& peers,
                        const PeerLayout& layout, Control* control, int rank, int world) {
  const long long fullVectors = bytes >> 4;
  const int tailBytes = static_cast<int>(bytes & 15);
  const long long vectors = fullVectors + (tailBytes ? 1 : 0);
  const uint32_t epoch = control->lamportEpoch + 1;
  const int slot = epoch % 3;
  const int previousSlot = (epoch + 2) % 3;
  const long long previousVectors = control->lamportVectors[previousSlot];
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;

  for (long long v = first; v < vectors; v += stride) {
    uint4 x = lamport_sanitize(load_input(input, v, fullVectors, tailBytes));
#pragma unroll
    for (int step = 0; step < GPUCOMM_MAX_RANKS; ++step) {
      if (step < world) {
        st_volatile_v4(lamport_area(peers.base[peer_at(rank, step, world)], layout, slot, rank) + v,
                       x);
      }
    }
  }

  char* self = peers.base[rank];
  for (long long v = first; v < vectors; v += stride) {
    uint4 vals[GPUCOMM_MAX_RANKS];
#pragma unroll
    for (int q = 0; q < GPUCOMM_MAX_RANKS; ++q) {
      if (q < world) {
        const uint4* src = lamport_area(self, layout, slot, q) + v;
        uint4 x;
        do {
          x = ld_volatile_v4(src);
        } while (lamport_pending(x));
        vals[q] = x;
      }
    }
    store_output(output, v, fullVectors, tailBytes, reduce_in_rank_order<T>(vals, world));
  }

  const uint4 sentinel = make_uint4(GPUCOMM_LAMPORT_SENTINEL, GPUCOMM_LAMPORT_SENTINEL,
                                    GPUCOMM_LAMPORT_SENTINEL, GPUCOMM_LAMPORT_SENTINEL);
  for (long long i = first; i < previousVectors * world; i += stride) {
    const int sender = static_cast<int>(i / previousVectors);
    lamport_area(self, layout, previousSlot, sender)[i - sender * previousVectors] = sentinel;
  }

  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&control->lamportArrived, 1u) == gridDim.x - 1) {
      control->lamportArrived = 0;
      control->lamportVectors[slot] = vectors;
      control->lamportEpoch = epoch;
      __threadfence();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Entry points: one per algorithm and element type.

#define GPUCOMM_ALLREDUCE_KERNEL(algorithm, suffix, type)                                       \
  extern "C" __global__ void __launch_bounds__(GPUCOMM_THREADS, 1)                              \
      gpucomm_##algorithm##_##suffix(const char* input, char* output, long long bytes,          \
                                     const __grid_constant__ PeerBases peers,                   \
                                     const __grid_constant__ PeerLayout layout, Control* control, \
                                     int rank, int world) {                                     \
    algorithm<type>(input, output, bytes, peers, layout, control, rank, world);                 \
  }

GPUCOMM_ALLREDUCE_KERNEL(oneshot, bf16, __nv_bfloat16)
GPUCOMM_ALLREDUCE_KERNEL(oneshot, fp16, __half)
GPUCOMM_ALLREDUCE_KERNEL(oneshot, fp32, float)
GPUCOMM_ALLREDUCE_KERNEL(twoshot, bf16, __nv_bfloat16)
GPUCOMM_ALLREDUCE_KERNEL(twoshot, fp16, __half)
GPUCOMM_ALLREDUCE_KERNEL(twoshot, fp32, float)
GPUCOMM_ALLREDUCE_KERNEL(lamport, bf16, __nv_bfloat16)
GPUCOMM_ALLREDUCE_KERNEL(lamport, fp16, __half)
GPUCOMM_ALLREDUCE_KERNEL(lamport, fp32, float)

// ---------------------------------------------------------------------------------------------
// Peer-memory check, run once when a communicator is built: every rank writes a word into every
// peer's check area over the peer mapping, then (after the ranks meet on the host) reads back the
// words the peers wrote into its own area and, remotely, the word it wrote into each peer's area.

__device__ __forceinline__ uint32_t check_pattern(int writer, int reader) {
  return 0x9E3779B9u * static_cast<uint32_t>(writer * GPUCOMM_MAX_RANKS + reader + 1);
}

extern "C" __global__ void gpucomm_peer_check_write(const __grid_constant__ PeerBases peers,
                                                    const __grid_constant__ PeerLayout layout,
                                                    int rank, int world) {
  const int peer = threadIdx.x;
  if (peer < world) {
    uint32_t* check = reinterpret_cast<uint32_t*>(peers.base[peer] + layout.checkOffset);
    st_release_sys(check + rank, check_pattern(rank, peer));
  }
}

// result[2 * peer]: what peer wrote into this rank's area; result[2 * peer + 1]: what this rank
// wrote into peer's area, read back over the mapping; result[2 * MAX_RANKS + 2 * peer (+1)]: the
// expected values.
extern "C" __global__ void gpucomm_peer_check_read(const __grid_constant__ PeerBases peers,
                                                   const __grid_constant__ PeerLayout layout,
                                                   int rank, int world, uint32_t* result) {
  const int peer = threadIdx.x;
  if (peer < world) {
    const uint32_t* mine = reinterpret_cast<const uint32_t*>(peers.base[rank] + layout.checkOffset);
    const uint32_t* theirs =
        reinterpret_cast<const uint32_t*>(peers.base[peer] + layout.checkOffset);
    result[2 * peer] = ld_acquire_sys(mine + peer);
    result[2 * peer + 1] = ld_acquire_sys(theirs + rank);
    result[2 * GPUCOMM_MAX_RANKS + 2 * peer] = check_pattern(peer, rank);
    result[2 * GPUCOMM_MAX_RANKS + 2 * peer + 1] = check_pattern(rank, peer);
  }
}
