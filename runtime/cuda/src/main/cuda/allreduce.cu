// All-reduce kernels of gpucomm's CUDA backend, over CUDA IPC peer memory.
//
// Every rank of a node owns one peer-memory allocation with the same layout (PeerLayout) and
// maps the others' through CUDA IPC; PeerBases holds the base address of every rank's
// allocation as seen from this rank (its own included). The kernels never read the caller's
// buffers remotely: each rank pushes its own input into the peers' receive areas, so eager calls
// need no staging copy and CUDA-graph replays need no buffer registration.
//
//   oneshot   push the whole input to every peer, then reduce locally.
//   twoshot   push slice r to rank r, reduce the own slice into scratch, pull the reduced slices.
//   lamport   flag-free one-shot: receive slots hold a sentinel until data lands, so a rank polls
//             its own memory instead of waiting on flags; three slots rotate.
//   lamport2  flag-free two-shot: the same sentinel slots for the scattered slices and for the
//             reduced slices, so a call moves half the data of a one-shot with no flag round trip.
//   oneshot_ws, twoshot_ws
//             warp-specialized one-shot and two-shot for large calls: each step of the pipeline
//             (push, reduce, gather) has its own team of warps working chunk after chunk, so that
//             NVLink stores never wait for local reduction.
//   oneshot_wsh
//             oneshot_ws for two ranks whose first `hostBytes` travel through pinned host memory
//             (the PCIe links) instead of NVLink: the host moves them with the copy engines on
//             side streams (HostWords below), and the pushing warps reduce them once pushed.
//   twoshot_wsh
//             twoshot_ws whose first `hostBytes` are scattered through pinned host memory: each
//             rank's part of them reaches its owner over the PCIe links, the scattering warps
//             reduce it once they have scattered, and the peers pull the reduced parts over NVLink.
//   oneshot_stream
//             oneshot_ws over a call larger than the receive areas, pass after pass in one launch:
//             the pushing warps overwrite a chunk of the last pass once every peer has credited
//             its reading (a row of credit flags beside the one-shot's flags).
//
// Summation order is fixed (rank 0, 1, ..., n-1, accumulated in fp32), so every rank and every
// algorithm produces bit-identical results for the same inputs.
//
// Synchronization. Block b of every rank works on the same vectors (each algorithm launches a
// fixed grid, so the vector-to-block mapping never changes) and synchronizes only with block b of
// the other ranks. Flags are 32-bit words with exactly one writer each, flags[block][peer] in the
// waiting rank's signal area, holding an increasing counter (epoch << 16 | chunk + 1) compared
// with a wrap-safe signed difference, so a peer that already signalled a later chunk (or call)
// satisfies a wait for an earlier one. Epochs live in device memory, one per block, and are
// advanced by the kernel itself, so CUDA-graph replays see fresh epochs; there is no grid-wide
// atomic. Receive areas alternate by epoch parity: a rank can be at most one call ahead of a peer,
// so it never writes the half the peer may still be reading. Flags that order data between GPUs
// are written after a fence.acq_rel.sys and read with ld.acquire.sys.
//
// Pipelining. A call is cut into at most `maxChunks` chunks per block (a chunk is a whole number
// of groups of ROUNDS vectors per thread). In step k a block pushes chunk k, reduces chunk k-1
// (whose flags the peers raised one step earlier) and, for two-shot, gathers chunk k-2; only then
// does it fence and raise its own flags, by which time its remote stores have mostly landed.
// NVLink transfers and local reduction overlap, and each chunk costs one system-scope fence.
//
// Build: one PTX per world size (-DGPUCOMM_WORLD=2, 4, 8: loops and registers sized at compile
// time) and a generic one (GPUCOMM_WORLD=0) for any world of 1..8 known at run time.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "lanes.cuh"
#include "peer_memory.cuh"

#ifndef GPUCOMM_WORLD
#define GPUCOMM_WORLD 0
#endif

#define GPUCOMM_MAX_RANKS 8
#define GPUCOMM_MAX_BLOCKS 160
#define GPUCOMM_THREADS 512
#define GPUCOMM_LAMPORT_SENTINEL 0x80008000u
#define GPUCOMM_HOST_CHUNKS_MAX 16

#if GPUCOMM_WORLD > 0
#define WORLD_BOUND GPUCOMM_WORLD
#else
#define WORLD_BOUND GPUCOMM_MAX_RANKS
#endif

// Vectors per thread per pipeline chunk: as many loads in flight as registers allow.
#if GPUCOMM_WORLD == 2
#define ROUNDS 4
#elif GPUCOMM_WORLD == 4
#define ROUNDS 2
#else
#define ROUNDS 1
#endif

struct PeerBases {
  char* base[GPUCOMM_MAX_RANKS];
};

// Byte offsets inside every rank's peer-memory allocation; identical on all ranks.
struct PeerLayout {
  long long oneshotFlagsOffset;  // uint32 [MAX_BLOCKS][MAX_RANKS]
  long long twoshotFlagsOffset;  // uint32 [3 barrier][MAX_BLOCKS][MAX_RANKS]: scatter, reduced,
                                 // host part reduced (twoshot_wsh)
  long long checkOffset;         // uint32 [MAX_RANKS], the peer-memory write/read check
  long long oneshotRecvOffset;   // [2 parity][world][oneshotRankStride]
  long long oneshotRankStride;
  long long twoshotRecvOffset;   // [2 parity][world][twoshotRankStride]
  long long twoshotRankStride;
  long long scratchOffset;       // two-shot: this rank's reduced slice
  long long lamportOffset;       // [3 slot][world][lamportRankStride]
  long long lamportRankStride;
  long long lamport2Offset;      // Lamport two-shot: scatter [3][world][stride], gather [3][world][stride]
  long long lamport2RankStride;
  long long hostWordsOffset;     // HostWords
  long long streamCreditsOffset; // uint32 [MAX_BLOCKS][MAX_RANKS]: oneshot_stream's credits
};

// The words of the host path (oneshot_wsh, twoshot_wsh) in every rank's peer memory, all zero at
// the start. The copy streams move a call's host bytes chunk by chunk (HostPath on the host): the
// sender's outbound stream stages each chunk in pinned host memory and sets `staged[sender][k]` in
// the receiver's words over the peer mapping; the receiver's inbound stream waits for it in its own
// memory, clears it, copies the chunk on into its own peer memory and, once chunk k has come from
// every sender, sets its `ready[k]`. The kernel reduces chunk k once `ready[k]` is set, and the last
// block to finish clears the ready words for the next call. On two ranks `inUse[receiver]` in the
// sender's words keeps the sender from restaging before the receiver has copied. The streams write
// only constants, so CUDA graphs replay the protocol unchanged; the kernels touch only `ready`
// and `done`.
struct HostWords {
  uint32_t ready[GPUCOMM_HOST_CHUNKS_MAX];
  uint32_t done;  // blocks of this rank's kernel that have reduced every host chunk
  uint32_t staged[GPUCOMM_MAX_RANKS][GPUCOMM_HOST_CHUNKS_MAX];
  uint32_t inUse[GPUCOMM_MAX_RANKS];
};

// Per-communicator state in this rank's own (not shared) device memory, one entry per block.
struct Control {
  uint32_t oneshotEpoch[GPUCOMM_MAX_BLOCKS];
  uint32_t twoshotEpoch[GPUCOMM_MAX_BLOCKS];
  uint32_t lamportEpoch[GPUCOMM_MAX_BLOCKS];
  uint32_t lamport2Epoch[GPUCOMM_MAX_BLOCKS];
  long long lamportVectors[GPUCOMM_MAX_BLOCKS][3];   // vectors each slot held at its last use
  long long lamport2Vectors[GPUCOMM_MAX_BLOCKS][3];  // longest slice at each slot's last use
  uint32_t streamEpoch[GPUCOMM_MAX_BLOCKS];          // oneshot_stream's credits
};

// ---------------------------------------------------------------------------------------------
// Sums vals[0..world) in rank order and packs the result.
template <typename T>
__device__ __forceinline__ uint4 reduce_in_rank_order(const uint4 (&vals)[WORLD_BOUND],
                                                      int world) {
  float acc[Lanes<T>::count];
#pragma unroll
  for (int q = 0; q < WORLD_BOUND; ++q) {
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
// Teams. A team is a set of whole warps of one block with its own barrier: the whole block
// (barrier 0, __syncthreads), or one of the equal teams of a warp-specialized kernel, which gives
// each step of the pipeline (push, reduce, gather) its own warps so that the steps of different
// chunks run at the same time instead of taking turns on the multiprocessor.

struct Team {
  int barrier;  // named barrier: 0 for the whole block, 1 + index for a specialized team
  int threads;  // threads in the team, a multiple of the warp size
  int thread;   // this thread's index in the team
  int index;    // which team; `teams` for the warps left over, which have nothing to do
};

__device__ __forceinline__ Team whole_block() {
  return Team{0, static_cast<int>(blockDim.x), static_cast<int>(threadIdx.x), 0};
}

// The block's warps cut into `teams` equal teams of whole warps, in warp order.
__device__ __forceinline__ Team specialized_team(int teams) {
  const int threads = static_cast<int>(blockDim.x) / 32 / teams * 32;
  const int index = static_cast<int>(threadIdx.x) / threads;
  return Team{1 + index, threads, static_cast<int>(threadIdx.x) - index * threads, index};
}

// Orders the team's memory accesses before the barrier with those after it, for the team's
// threads (the PTX barriers are CTA-scope release/acquire among the threads they count).
__device__ __forceinline__ void team_sync(const Team& team) {
  if (team.barrier == 0) {
    __syncthreads();
  } else {
    asm volatile("bar.sync %0, %1;" ::"r"(team.barrier), "r"(team.threads) : "memory");
  }
}

// ---------------------------------------------------------------------------------------------
// Flags.

__device__ __forceinline__ int world_size(int runtimeWorld) {
  return GPUCOMM_WORLD > 0 ? GPUCOMM_WORLD : runtimeWorld;
}

__device__ __forceinline__ int peer_at(int rank, int step, int world) {
  int peer = rank + step;
  return peer >= world ? peer - world : peer;
}

__device__ __forceinline__ uint32_t flag_value(uint32_t epoch, int chunk) {
  return (epoch << 16) + static_cast<uint32_t>(chunk) + 1u;
}

__device__ __forceinline__ uint32_t* flag_row(char* base, long long offset, int block) {
  return reinterpret_cast<uint32_t*>(base + offset) + block * GPUCOMM_MAX_RANKS;
}

// Team thread t < world raises this rank's flag in rank t's signal area with a system-scope
// release that (after the team's barrier) orders every store the team issued before it.
__device__ __forceinline__ void raise_flags(const Team& team, const PeerBases& peers,
                                            long long offset, uint32_t value, int rank, int world) {
  team_sync(team);
  if (team.thread < world) {
    st_release_sys(flag_row(peers.base[team.thread], offset, blockIdx.x) + rank, value);
  }
}

__device__ __forceinline__ void raise_two_flags(const Team& team, const PeerBases& peers,
                                                long long offset1, bool raise1, uint32_t value1,
                                                long long offset2, bool raise2, uint32_t value2,
                                                int rank, int world) {
  team_sync(team);
  if (team.thread < world) {
    fence_acq_rel_sys();
    if (raise1) st_relaxed_sys(flag_row(peers.base[team.thread], offset1, blockIdx.x) + rank, value1);
    if (raise2) st_relaxed_sys(flag_row(peers.base[team.thread], offset2, blockIdx.x) + rank, value2);
  }
}

// Team thread t < world waits until rank t's flag here has reached `value`; the team then
// proceeds.
__device__ __forceinline__ void wait_flags(const Team& team, const PeerBases& peers,
                                           long long offset, uint32_t value, int rank, int world) {
  if (team.thread < world) {
    const uint32_t* flag = flag_row(peers.base[rank], offset, blockIdx.x) + team.thread;
    while (static_cast<int>(ld_acquire_sys(flag) - value) < 0) {
    }
  }
  team_sync(team);
}

// ---------------------------------------------------------------------------------------------
// Chunk plan: `length` vectors spread over the grid, `ROUNDS` vectors per thread per group, at
// most `maxChunks` chunks of whole groups. The same on every rank for the same call, and for every
// team of a block as long as the teams are the same size.

struct ChunkPlan {
  long long groupsPerChunk;
  long long groups;
  int chunks;
};

__device__ __forceinline__ ChunkPlan plan_chunks(long long length, long long stride, int maxChunks) {
  ChunkPlan plan;
  const long long perThread = (length + stride - 1) / stride;
  plan.groups = (perThread + ROUNDS - 1) / ROUNDS;
  plan.groupsPerChunk = (plan.groups + maxChunks - 1) / maxChunks;
  if (plan.groupsPerChunk < 1) plan.groupsPerChunk = 1;
  plan.chunks = static_cast<int>((plan.groups + plan.groupsPerChunk - 1) / plan.groupsPerChunk);
  return plan;
}

__device__ __forceinline__ long long chunk_group_end(const ChunkPlan& plan, int chunk) {
  const long long end = (chunk + 1) * plan.groupsPerChunk;
  return end < plan.groups ? end : plan.groups;
}

// How one team of this block walks a call: its thread's first vector, the distance between the
// vectors of one thread, and the chunk plan. Group g of a thread covers vectors
// first + g * stride * ROUNDS + r * stride for r < ROUNDS.
struct Walk {
  long long first;
  long long stride;
  ChunkPlan plan;
};

__device__ __forceinline__ Walk walk(const Team& team, long long length, int maxChunks) {
  Walk w;
  w.first = static_cast<long long>(blockIdx.x) * team.threads + team.thread;
  w.stride = static_cast<long long>(gridDim.x) * team.threads;
  w.plan = plan_chunks(length, w.stride, maxChunks);
  return w;
}

__device__ __forceinline__ long long group_start(const Walk& w, long long group) {
  return w.first + group * w.stride * ROUNDS;
}

// ---------------------------------------------------------------------------------------------
// One-shot.

struct OneshotCall {
  const char* input;
  char* output;
  long long fullVectors;
  int tailBytes;
  long long vectors;
  long long parityOffset;  // this call's receive areas (they alternate by epoch parity)
  int rank;
  int world;
};

__device__ __forceinline__ OneshotCall oneshot_call(const char* input, char* output,
                                                    long long bytes, const PeerLayout& layout,
                                                    uint32_t epoch, int rank, int world) {
  OneshotCall c;
  c.input = input;
  c.output = output;
  c.fullVectors = bytes >> 4;
  c.tailBytes = static_cast<int>(bytes & 15);
  c.vectors = c.fullVectors + (c.tailBytes ? 1 : 0);
  c.parityOffset = layout.oneshotRecvOffset + (epoch & 1) * world * layout.oneshotRankStride;
  c.rank = rank;
  c.world = world;
  return c;
}

// Pushes the team's part of chunk `chunk` of the input into every peer's receive area, `Groups`
// groups at a time: a thread has Groups * ROUNDS loads of the input in flight before it stores.
template <int Groups>
__device__ __forceinline__ void oneshot_push(const OneshotCall& c, const Walk& w,
                                             const PeerBases& peers, const PeerLayout& layout,
                                             int chunk) {
  const long long end = chunk_group_end(w.plan, chunk);
  for (long long g = chunk * w.plan.groupsPerChunk; g < end; g += Groups) {
    uint4 x[Groups][ROUNDS];
#pragma unroll
    for (int k = 0; k < Groups; ++k) {
      const long long v0 = group_start(w, g + k);
#pragma unroll
      for (int r = 0; r < ROUNDS; ++r) {
        if (g + k < end && v0 + r * w.stride < c.vectors) x[k][r] = load_input(c.input, v0 + r * w.stride, c.fullVectors, c.tailBytes);
      }
    }
#pragma unroll
    for (int s = 1; s < WORLD_BOUND; ++s) {
      if (s < c.world) {
        const int peer = peer_at(c.rank, s, c.world);
        uint4* dst = reinterpret_cast<uint4*>(peers.base[peer] + c.parityOffset +
                                              c.rank * layout.oneshotRankStride);
#pragma unroll
        for (int k = 0; k < Groups; ++k) {
          const long long v0 = group_start(w, g + k);
#pragma unroll
          for (int r = 0; r < ROUNDS; ++r) {
            if (g + k < end && v0 + r * w.stride < c.vectors) dst[v0 + r * w.stride] = x[k][r];
          }
        }
      }
    }
  }
}

// Reduces the team's part of chunk `chunk` (every peer's copy has landed) into the output.
template <typename T>
__device__ __forceinline__ void oneshot_reduce(const OneshotCall& c, const Walk& w,
                                               const PeerBases& peers, const PeerLayout& layout,
                                               int chunk) {
  const char* self = peers.base[c.rank];
  for (long long g = chunk * w.plan.groupsPerChunk; g < chunk_group_end(w.plan, chunk); ++g) {
    const long long v0 = group_start(w, g);
    uint4 vals[ROUNDS][WORLD_BOUND];
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
      const long long v = v0 + r * w.stride;
      if (v < c.vectors) {
#pragma unroll
        for (int q = 0; q < WORLD_BOUND; ++q) {
          if (q < c.world) {
            vals[r][q] = q == c.rank ? load_input(c.input, v, c.fullVectors, c.tailBytes)
                                     : __ldcg(reinterpret_cast<const uint4*>(
                                                  self + c.parityOffset + q * layout.oneshotRankStride) +
                                              v);
          }
        }
      }
    }
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
      const long long v = v0 + r * w.stride;
      if (v < c.vectors) store_output(c.output, v, c.fullVectors, c.tailBytes, reduce_in_rank_order<T>(vals[r], c.world));
    }
  }
}

// The whole block takes turns: in step k it pushes chunk k, reduces chunk k - 1 (whose flags the
// peers raised one step earlier), then raises its flags for chunk k.
template <typename T>
__device__ void oneshot(const char* input, char* output, long long bytes, const PeerBases& peers,
                        const PeerLayout& layout, Control* control, int rank, int runtimeWorld,
                        int maxChunks) {
  const int world = world_size(runtimeWorld);
  const uint32_t epoch = control->oneshotEpoch[blockIdx.x] + 1;
  const OneshotCall c = oneshot_call(input, output, bytes, layout, epoch, rank, world);
  const Team block = whole_block();
  const Walk w = walk(block, c.vectors, maxChunks);
  const int chunks = w.plan.chunks;

  for (int step = 0; step <= chunks; ++step) {
    if (step < chunks) oneshot_push<1>(c, w, peers, layout, step);
    if (step >= 1) {
      wait_flags(block, peers, layout.oneshotFlagsOffset, flag_value(epoch, step - 1), rank, world);
      oneshot_reduce<T>(c, w, peers, layout, step - 1);
    }
    if (step < chunks) {
      raise_flags(block, peers, layout.oneshotFlagsOffset, flag_value(epoch, step), rank, world);
    }
  }
  if (threadIdx.x == 0) control->oneshotEpoch[blockIdx.x] = epoch;
}

// Warp-specialized one-shot: half the warps push chunk after chunk, raising flags as they go;
// the other half wait for the peers' flags and reduce. Pushing never waits for reducing, so the
// NVLink stores keep flowing while chunks are reduced. Same flags, epochs, receive areas and grid
// as `oneshot`, so calls may alternate between the two.
template <typename T>
__device__ void oneshot_ws(const char* input, char* output, long long bytes,
                           const PeerBases& peers, const PeerLayout& layout, Control* control,
                           int rank, int runtimeWorld, int maxChunks) {
  const int world = world_size(runtimeWorld);
  const uint32_t epoch = control->oneshotEpoch[blockIdx.x] + 1;
  // Every thread has read the epoch before thread 0 may store the next one.
  __syncthreads();
  const OneshotCall c = oneshot_call(input, output, bytes, layout, epoch, rank, world);
  const Team team = specialized_team(2);
  const Walk w = walk(team, c.vectors, maxChunks);
  const int chunks = w.plan.chunks;

  if (team.index == 0) {
    for (int chunk = 0; chunk < chunks; ++chunk) {
      oneshot_push<2>(c, w, peers, layout, chunk);
      raise_flags(team, peers, layout.oneshotFlagsOffset, flag_value(epoch, chunk), rank, world);
    }
  } else if (team.index == 1) {
    for (int chunk = 0; chunk < chunks; ++chunk) {
      wait_flags(team, peers, layout.oneshotFlagsOffset, flag_value(epoch, chunk), rank, world);
      oneshot_reduce<T>(c, w, peers, layout, chunk);
    }
  }
  if (threadIdx.x == 0) control->oneshotEpoch[blockIdx.x] = epoch;
}

// Streamed one-shot, for calls larger than the receive areas: oneshot_ws over the call in passes
// of `passBytes` (the receive area's size), all in one launch, so that the pushing team starts the
// next pass while the reducing team is still on this one instead of every pass filling and draining
// the pipeline on its own. Pass p's chunk k lands where pass p - 1's chunks did, so before pushing
// it the pushing team waits for every peer's credit for the chunk of pass p - 1 that covers it: the
// peer's reducing team raises it in this rank's credit row once it has read that chunk. Only the
// last pass can be short; its chunk k covers groups inside chunks 0..k of a whole pass and inside
// the whole pass's chunks, but it may have more chunks than a whole pass (fewer groups per chunk),
// so it waits for chunk min(k, whole chunks - 1), and credits count up within a call, so that wait
// covers every earlier chunk too. Data flags and credits number chunks p * maxChunks + k within the
// call, and the host keeps a launch to fewer than 2^16 of them. Data flags carry the one-shot epoch
// (every one-shot kernel rewrites them); credits carry an epoch of their own that only this kernel
// advances, so a credit row is never more than one streamed call old, whatever ran in between. One
// one-shot epoch, and the receive areas of its parity, per launch: the next call writes the other
// parity, as after any one-shot.
template <typename T>
__device__ void oneshot_stream(const char* input, char* output, long long bytes,
                               const PeerBases& peers, const PeerLayout& layout, Control* control,
                               int rank, int runtimeWorld, int maxChunks, long long passBytes) {
  const int world = world_size(runtimeWorld);
  const uint32_t epoch = control->oneshotEpoch[blockIdx.x] + 1;
  const uint32_t creditEpoch = control->streamEpoch[blockIdx.x] + 1;
  // Every thread has read the epochs before thread 0 may store the next ones.
  __syncthreads();
  const Team team = specialized_team(2);
  const int wholeChunks = walk(team, passBytes >> 4, maxChunks).plan.chunks;
  const long long passes = (bytes + passBytes - 1) / passBytes;
  for (long long pass = 0; pass < passes; ++pass) {
    const long long start = pass * passBytes;
    const long long length = bytes - start < passBytes ? bytes - start : passBytes;
    const OneshotCall c = oneshot_call(input + start, output + start, length, layout, epoch, rank, world);
    const Walk w = walk(team, c.vectors, maxChunks);
    const int first = static_cast<int>(pass) * maxChunks;
    if (team.index == 0) {
      for (int chunk = 0; chunk < w.plan.chunks; ++chunk) {
        if (pass > 0) {
          const int covering = chunk < wholeChunks ? chunk : wholeChunks - 1;
          wait_flags(team, peers, layout.streamCreditsOffset,
                     flag_value(creditEpoch, first - maxChunks + covering), rank, world);
        }
        oneshot_push<2>(c, w, peers, layout, chunk);
        raise_flags(team, peers, layout.oneshotFlagsOffset, flag_value(epoch, first + chunk), rank,
                    world);
      }
    } else if (team.index == 1) {
      for (int chunk = 0; chunk < w.plan.chunks; ++chunk) {
        wait_flags(team, peers, layout.oneshotFlagsOffset, flag_value(epoch, first + chunk), rank,
                   world);
        oneshot_reduce<T>(c, w, peers, layout, chunk);
        if (pass + 1 < passes) {
          raise_flags(team, peers, layout.streamCreditsOffset,
                      flag_value(creditEpoch, first + chunk), rank, world);
        }
      }
    }
  }
  if (threadIdx.x == 0) {
    control->oneshotEpoch[blockIdx.x] = epoch;
    control->streamEpoch[blockIdx.x] = creditEpoch;
  }
}

// ---------------------------------------------------------------------------------------------
// One-shot with a host path (two ranks). The SM part is oneshot_ws over the bytes after
// `hostBytes`, at the same offsets of the receive areas; the host part is `hostChunks` equal
// chunks of whole vectors (the host sizes it so), received into this rank's own receive slot.

__device__ __forceinline__ HostWords* host_words(char* base, const PeerLayout& layout) {
  return reinterpret_cast<HostWords*>(base + layout.hostWordsOffset);
}

// Waits until host chunk `chunk` has landed here; the team then proceeds.
__device__ __forceinline__ void wait_host_chunk(const Team& team, const HostWords* words,
                                                int chunk) {
  if (team.thread == 0) {
    while (ld_acquire_sys(&words->ready[chunk]) == 0) {
    }
  }
  team_sync(team);
}

// After the team has reduced every host chunk: the last block of the grid clears the ready words,
// which the next call's inbound copies set again (they start after this kernel ends).
__device__ __forceinline__ void host_chunks_consumed(const Team& team, HostWords* words,
                                                     int hostChunks) {
  team_sync(team);
  if (team.thread == 0) {
    __threadfence();
    if (atomicAdd(&words->done, 1u) == gridDim.x - 1) {
      words->done = 0;
      for (int k = 0; k < hostChunks; ++k) words->ready[k] = 0;
    }
  }
}

// Reduces the team's vectors of host chunk `chunk` into `out` (and `kept`, when not null): this
// rank's `in` and sender q's copy at `copies + q * copyStride` (stride 0: the one peer's copy of a
// one-shot on two ranks), in rank order.
template <typename T>
__device__ __forceinline__ void host_reduce(const Team& team, const uint4* in, uint4* out,
                                            uint4* kept, const uint4* copies,
                                            long long copyStride, long long chunkVectors,
                                            int chunk, int rank, int world) {
  const long long begin = chunk * chunkVectors;
  const long long end = begin + chunkVectors;
  const long long stride = static_cast<long long>(gridDim.x) * team.threads;
  for (long long v0 = begin + static_cast<long long>(blockIdx.x) * team.threads + team.thread;
       v0 < end; v0 += ROUNDS * stride) {
    uint4 vals[ROUNDS][WORLD_BOUND];
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
      const long long v = v0 + r * stride;
      if (v < end) {
#pragma unroll
        for (int q = 0; q < WORLD_BOUND; ++q) {
          if (q < world) vals[r][q] = q == rank ? in[v] : __ldcg(copies + q * copyStride + v);
        }
      }
    }
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
      const long long v = v0 + r * stride;
      if (v < end) {
        const uint4 sum = reduce_in_rank_order<T>(vals[r], world);
        if (kept != nullptr) kept[v] = sum;
        out[v] = sum;
      }
    }
  }
}

// The pushing warps reduce the host chunks once they have pushed everything: the chunks land about
// when the NVLink pushes end, and the reducing warps' loop stays exactly oneshot_ws's (reducing
// host chunks between NVLink chunks there was slower, and so was a variant of it with timing
// marks: bench/results/2026-11-22-2xH200-host-path-runtime/).
template <typename T>
__device__ void oneshot_wsh(const char* input, char* output, long long bytes,
                            const PeerBases& peers, const PeerLayout& layout, Control* control,
                            int rank, int runtimeWorld, int maxChunks, long long hostBytes,
                            int hostChunks) {
  const int world = world_size(runtimeWorld);
  const uint32_t epoch = control->oneshotEpoch[blockIdx.x] + 1;
  // Every thread has read the epoch before thread 0 may store the next one.
  __syncthreads();
  OneshotCall c = oneshot_call(input + hostBytes, output + hostBytes, bytes - hostBytes, layout,
                               epoch, rank, world);
  c.parityOffset += hostBytes;
  const Team team = specialized_team(2);
  const Walk w = walk(team, c.vectors, maxChunks);
  const int chunks = w.plan.chunks;
  HostWords* words = host_words(peers.base[rank], layout);
  const uint4* received = reinterpret_cast<const uint4*>(
      peers.base[rank] + layout.oneshotRecvOffset + rank * layout.oneshotRankStride);
  const long long chunkVectors = hostChunks > 0 ? (hostBytes >> 4) / hostChunks : 0;

  if (team.index == 0) {
    for (int chunk = 0; chunk < chunks; ++chunk) {
      oneshot_push<2>(c, w, peers, layout, chunk);
      raise_flags(team, peers, layout.oneshotFlagsOffset, flag_value(epoch, chunk), rank, world);
    }
    for (int next = 0; next < hostChunks; ++next) {
      wait_host_chunk(team, words, next);
      host_reduce<T>(team, reinterpret_cast<const uint4*>(input), reinterpret_cast<uint4*>(output),
                     nullptr, received, 0, chunkVectors, next, rank, world);
    }
    host_chunks_consumed(team, words, hostChunks);
  } else if (team.index == 1) {
    for (int chunk = 0; chunk < chunks; ++chunk) {
      wait_flags(team, peers, layout.oneshotFlagsOffset, flag_value(epoch, chunk), rank, world);
      oneshot_reduce<T>(c, w, peers, layout, chunk);
    }
  }
  if (threadIdx.x == 0) control->oneshotEpoch[blockIdx.x] = epoch;
}

// ---------------------------------------------------------------------------------------------
// Two-shot. Slice r covers vectors [r * part, r * part + length(r)); the last rank takes the
// remainder. Chunk k of every slice is the same per-thread index range, so one chunk count
// (from the longest slice) drives all three phases.

struct TwoshotCall {
  const char* input;
  char* output;
  long long fullVectors;
  int tailBytes;
  long long vectors;
  long long part;          // vectors of every slice but the last
  long long parityOffset;  // this call's receive areas (they alternate by epoch parity)
  long long scatterFlags;
  long long reducedFlags;
  int rank;
  int world;
};

__device__ __forceinline__ TwoshotCall twoshot_call(const char* input, char* output,
                                                    long long bytes, const PeerLayout& layout,
                                                    uint32_t epoch, int rank, int world) {
  TwoshotCall c;
  c.input = input;
  c.output = output;
  c.fullVectors = bytes >> 4;
  c.tailBytes = static_cast<int>(bytes & 15);
  c.vectors = c.fullVectors + (c.tailBytes ? 1 : 0);
  c.part = c.vectors / world;
  c.parityOffset = layout.twoshotRecvOffset + (epoch & 1) * world * layout.twoshotRankStride;
  c.scatterFlags = layout.twoshotFlagsOffset;
  c.reducedFlags =
      layout.twoshotFlagsOffset + GPUCOMM_MAX_BLOCKS * GPUCOMM_MAX_RANKS * sizeof(uint32_t);
  c.rank = rank;
  c.world = world;
  return c;
}

__device__ __forceinline__ long long slice_start(const TwoshotCall& c, int r) {
  return r * c.part;
}

__device__ __forceinline__ long long slice_length(const TwoshotCall& c, int r) {
  return r == c.world - 1 ? c.vectors - r * c.part : c.part;
}

// Pushes the team's part of chunk `chunk` of slice r to rank r, for every peer r.
__device__ __forceinline__ void twoshot_scatter(const TwoshotCall& c, const Walk& w,
                                                const PeerBases& peers, const PeerLayout& layout,
                                                int chunk) {
  for (long long g = chunk * w.plan.groupsPerChunk; g < chunk_group_end(w.plan, chunk); ++g) {
    const long long i0 = group_start(w, g);
#pragma unroll
    for (int s = 1; s < WORLD_BOUND; ++s) {
      if (s < c.world) {
        const int target = peer_at(c.rank, s, c.world);
        const long long start = slice_start(c, target);
        const long long length = slice_length(c, target);
        uint4* dst = reinterpret_cast<uint4*>(peers.base[target] + c.parityOffset +
                                              c.rank * layout.twoshotRankStride);
        uint4 x[ROUNDS];
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
          if (i0 + r * w.stride < length) x[r] = load_input(c.input, start + i0 + r * w.stride, c.fullVectors, c.tailBytes);
        }
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
          if (i0 + r * w.stride < length) dst[i0 + r * w.stride] = x[r];
        }
      }
    }
  }
}

// Reduces the team's part of chunk `chunk` of this rank's slice into scratch and the output.
template <typename T>
__device__ __forceinline__ void twoshot_reduce(const TwoshotCall& c, const Walk& w,
                                               const PeerBases& peers, const PeerLayout& layout,
                                               int chunk) {
  char* self = peers.base[c.rank];
  uint4* scratch = reinterpret_cast<uint4*>(self + layout.scratchOffset);
  const long long myStart = slice_start(c, c.rank);
  const long long myLength = slice_length(c, c.rank);
  for (long long g = chunk * w.plan.groupsPerChunk; g < chunk_group_end(w.plan, chunk); ++g) {
    const long long i0 = group_start(w, g);
    uint4 vals[ROUNDS][WORLD_BOUND];
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
      const long long i = i0 + r * w.stride;
      if (i < myLength) {
#pragma unroll
        for (int q = 0; q < WORLD_BOUND; ++q) {
          if (q < c.world) {
            vals[r][q] = q == c.rank ? load_input(c.input, myStart + i, c.fullVectors, c.tailBytes)
                                     : __ldcg(reinterpret_cast<const uint4*>(
                                                  self + c.parityOffset + q * layout.twoshotRankStride) +
                                              i);
          }
        }
      }
    }
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
      const long long i = i0 + r * w.stride;
      if (i < myLength) {
        uint4 sum = reduce_in_rank_order<T>(vals[r], c.world);
        scratch[i] = sum;
        store_output(c.output, myStart + i, c.fullVectors, c.tailBytes, sum);
      }
    }
  }
}

// Pulls the team's part of chunk `chunk` of every other rank's reduced slice into the output.
__device__ __forceinline__ void twoshot_gather(const TwoshotCall& c, const Walk& w,
                                               const PeerBases& peers, const PeerLayout& layout,
                                               int chunk) {
  for (long long g = chunk * w.plan.groupsPerChunk; g < chunk_group_end(w.plan, chunk); ++g) {
    const long long i0 = group_start(w, g);
#pragma unroll
    for (int s = 1; s < WORLD_BOUND; ++s) {
      if (s < c.world) {
        const int source = peer_at(c.rank, s, c.world);
        const long long start = slice_start(c, source);
        const long long length = slice_length(c, source);
        const uint4* theirs = reinterpret_cast<const uint4*>(peers.base[source] + layout.scratchOffset);
        uint4 x[ROUNDS];
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
          if (i0 + r * w.stride < length) x[r] = __ldcg(theirs + i0 + r * w.stride);
        }
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
          if (i0 + r * w.stride < length) store_output(c.output, start + i0 + r * w.stride, c.fullVectors, c.tailBytes, x[r]);
        }
      }
    }
  }
}

// The whole block takes turns: in step k it scatters chunk k, reduces chunk k - 1 and gathers
// chunk k - 2, then raises both flag sets with one fence.
template <typename T>
__device__ void twoshot(const char* input, char* output, long long bytes, const PeerBases& peers,
                        const PeerLayout& layout, Control* control, int rank, int runtimeWorld,
                        int maxChunks) {
  const int world = world_size(runtimeWorld);
  const uint32_t epoch = control->twoshotEpoch[blockIdx.x] + 1;
  const TwoshotCall c = twoshot_call(input, output, bytes, layout, epoch, rank, world);
  const Team block = whole_block();
  const Walk w = walk(block, c.vectors - (world - 1) * c.part, maxChunks);
  const int chunks = w.plan.chunks;

  for (int step = 0; step <= chunks + 1; ++step) {
    const bool scattered = step < chunks;
    const bool reduced = step >= 1 && step <= chunks;
    if (scattered) twoshot_scatter(c, w, peers, layout, step);
    if (reduced) {
      wait_flags(block, peers, c.scatterFlags, flag_value(epoch, step - 1), rank, world);
      twoshot_reduce<T>(c, w, peers, layout, step - 1);
    }
    if (step >= 2) {
      wait_flags(block, peers, c.reducedFlags, flag_value(epoch, step - 2), rank, world);
      twoshot_gather(c, w, peers, layout, step - 2);
    }
    if (scattered || reduced) {
      raise_two_flags(block, peers, c.scatterFlags, scattered, flag_value(epoch, step),
                      c.reducedFlags, reduced, flag_value(epoch, step - 1), rank, world);
    }
  }
  if (threadIdx.x == 0) control->twoshotEpoch[blockIdx.x] = epoch;
}

// The three teams of the warp-specialized two-shot, each chunk after chunk.
template <typename T>
__device__ __forceinline__ void twoshot_ws_steps(const TwoshotCall& c, const Walk& w,
                                                 const Team& team, const PeerBases& peers,
                                                 const PeerLayout& layout, uint32_t epoch) {
  const int chunks = w.plan.chunks;
  if (team.index == 0) {
    for (int chunk = 0; chunk < chunks; ++chunk) {
      twoshot_scatter(c, w, peers, layout, chunk);
      raise_flags(team, peers, c.scatterFlags, flag_value(epoch, chunk), c.rank, c.world);
    }
  } else if (team.index == 1) {
    for (int chunk = 0; chunk < chunks; ++chunk) {
      wait_flags(team, peers, c.scatterFlags, flag_value(epoch, chunk), c.rank, c.world);
      twoshot_reduce<T>(c, w, peers, layout, chunk);
      raise_flags(team, peers, c.reducedFlags, flag_value(epoch, chunk), c.rank, c.world);
    }
  } else if (team.index == 2) {
    for (int chunk = 0; chunk < chunks; ++chunk) {
      wait_flags(team, peers, c.reducedFlags, flag_value(epoch, chunk), c.rank, c.world);
      twoshot_gather(c, w, peers, layout, chunk);
    }
  }
}

// Warp-specialized two-shot: a third of the warps scatter, a third reduce, a third gather, each
// chunk after chunk, handing chunks on through the flags; no team waits for another to finish a
// different step. Same flags, epochs, buffers and grid as `twoshot`, so calls may alternate.
template <typename T>
__device__ void twoshot_ws(const char* input, char* output, long long bytes,
                           const PeerBases& peers, const PeerLayout& layout, Control* control,
                           int rank, int runtimeWorld, int maxChunks) {
  const int world = world_size(runtimeWorld);
  const uint32_t epoch = control->twoshotEpoch[blockIdx.x] + 1;
  // Every thread has read the epoch before thread 0 may store the next one.
  __syncthreads();
  const TwoshotCall c = twoshot_call(input, output, bytes, layout, epoch, rank, world);
  const Team team = specialized_team(3);
  const Walk w = walk(team, c.vectors - (world - 1) * c.part, maxChunks);
  twoshot_ws_steps<T>(c, w, team, peers, layout, epoch);
  if (threadIdx.x == 0) control->twoshotEpoch[blockIdx.x] = epoch;
}

// ---------------------------------------------------------------------------------------------
// Two-shot with a host path. The NVLink part is twoshot_ws over the bytes after `hostBytes`. The
// host part is cut into `world` equal parts of whole vectors, part r owned by rank r, each sent in
// `hostChunks` equal chunks: the copy streams (HostWords) bring every peer's copy of part r into
// rank r's own one-shot receive slot of parity 1 (no peer ever writes there), at sender * part
// bytes. Once the scattering warps have scattered their NVLink chunks, they reduce the own part
// chunk by chunk as it lands, into the output and into that slot at rank * part bytes, raise the
// host flags, and pull the peers' reduced parts over NVLink. The reducing and pulling walk the
// vectors the same way on every rank, so block b of a rank pulls what block b of the owner reduced.

__device__ __forceinline__ char* host_part_area(char* base, const PeerLayout& layout, int world,
                                                int owner) {
  return base + layout.oneshotRecvOffset + (world + owner) * layout.oneshotRankStride;
}

// Pulls the team's vectors of every peer's reduced host part into the output, chunk by chunk as
// host_reduce walked them.
__device__ __forceinline__ void host_part_gather(const Team& team, char* output,
                                                 const PeerBases& peers, const PeerLayout& layout,
                                                 long long partVectors, long long chunkVectors,
                                                 int hostChunks, int rank, int world) {
  const long long stride = static_cast<long long>(gridDim.x) * team.threads;
#pragma unroll
  for (int s = 1; s < WORLD_BOUND; ++s) {
    if (s < world) {
      const int source = peer_at(rank, s, world);
      const uint4* theirs =
          reinterpret_cast<const uint4*>(host_part_area(peers.base[source], layout, world, source)) +
          source * partVectors;
      uint4* out = reinterpret_cast<uint4*>(output) + source * partVectors;
      for (int chunk = 0; chunk < hostChunks; ++chunk) {
        const long long end = (chunk + 1) * chunkVectors;
        for (long long v0 = chunk * chunkVectors +
                            static_cast<long long>(blockIdx.x) * team.threads + team.thread;
             v0 < end; v0 += ROUNDS * stride) {
          uint4 x[ROUNDS];
#pragma unroll
          for (int r = 0; r < ROUNDS; ++r) {
            if (v0 + r * stride < end) x[r] = __ldcg(theirs + v0 + r * stride);
          }
#pragma unroll
          for (int r = 0; r < ROUNDS; ++r) {
            if (v0 + r * stride < end) out[v0 + r * stride] = x[r];
          }
        }
      }
    }
  }
}

template <typename T>
__device__ void twoshot_wsh(const char* input, char* output, long long bytes,
                            const PeerBases& peers, const PeerLayout& layout, Control* control,
                            int rank, int runtimeWorld, int maxChunks, long long hostBytes,
                            int hostChunks) {
  const int world = world_size(runtimeWorld);
  const uint32_t epoch = control->twoshotEpoch[blockIdx.x] + 1;
  // Every thread has read the epoch before thread 0 may store the next one.
  __syncthreads();
  const TwoshotCall c = twoshot_call(input + hostBytes, output + hostBytes, bytes - hostBytes,
                                     layout, epoch, rank, world);
  const Team team = specialized_team(3);
  const Walk w = walk(team, c.vectors - (world - 1) * c.part, maxChunks);
  twoshot_ws_steps<T>(c, w, team, peers, layout, epoch);
  if (team.index == 0) {
    const long long hostFlags =
        layout.twoshotFlagsOffset + 2 * GPUCOMM_MAX_BLOCKS * GPUCOMM_MAX_RANKS * sizeof(uint32_t);
    const long long partVectors = (hostBytes >> 4) / world;
    const long long chunkVectors = partVectors / hostChunks;
    HostWords* words = host_words(peers.base[rank], layout);
    char* area = host_part_area(peers.base[rank], layout, world, rank);
    for (int chunk = 0; chunk < hostChunks; ++chunk) {
      wait_host_chunk(team, words, chunk);
      uint4* parts = reinterpret_cast<uint4*>(area);
      host_reduce<T>(team, reinterpret_cast<const uint4*>(input) + rank * partVectors,
                     reinterpret_cast<uint4*>(output) + rank * partVectors,
                     parts + rank * partVectors, parts, partVectors, chunkVectors, chunk, rank,
                     world);
    }
    raise_flags(team, peers, hostFlags, flag_value(epoch, 0), rank, world);
    host_chunks_consumed(team, words, hostChunks);
    wait_flags(team, peers, hostFlags, flag_value(epoch, 0), rank, world);
    host_part_gather(team, output, peers, layout, partVectors, chunkVectors, hostChunks, rank,
                     world);
  }
  if (threadIdx.x == 0) control->twoshotEpoch[blockIdx.x] = epoch;
}

// ---------------------------------------------------------------------------------------------
// Lamport one-shot. Receive slots hold the sentinel word 0x80008000 (two bf16/fp16 -0.0 halves)
// until a peer's data lands; a data word equal to the sentinel is sent as 0 (+0.0 halves, or the
// fp32 denormal -4.6e-41 flushed to +0.0), identically on every rank. Slot e % 3 receives call e
// while the slot of call e - 1 is refilled with the sentinel: a peer can be at most one call ahead,
// so it never writes the slot being refilled, and every write into the slot of call e - 1 landed
// before this rank finished that call, so any thread may refill any part of it.
//
// Small calls have fewer vectors than the grid has threads. So that every multiprocessor shares
// the NVLink stores, the sends and refills run over (destination, vector) pairs rather than over
// vectors; and a thread that waits for several slots has all their loads in flight at once,
// reissuing only those still holding the sentinel, so a wait costs one memory round trip rather
// than one per rank.

__device__ __forceinline__ uint4 lamport_sanitize(uint4 x) {
  x.x = x.x == GPUCOMM_LAMPORT_SENTINEL ? 0u : x.x;
  x.y = x.y == GPUCOMM_LAMPORT_SENTINEL ? 0u : x.y;
  x.z = x.z == GPUCOMM_LAMPORT_SENTINEL ? 0u : x.z;
  x.w = x.w == GPUCOMM_LAMPORT_SENTINEL ? 0u : x.w;
  return x;
}

__device__ __forceinline__ uint4 lamport_sentinel() {
  return make_uint4(GPUCOMM_LAMPORT_SENTINEL, GPUCOMM_LAMPORT_SENTINEL, GPUCOMM_LAMPORT_SENTINEL,
                    GPUCOMM_LAMPORT_SENTINEL);
}

__device__ __forceinline__ bool lamport_pending(uint4 x) {
  return x.x == GPUCOMM_LAMPORT_SENTINEL || x.y == GPUCOMM_LAMPORT_SENTINEL ||
         x.z == GPUCOMM_LAMPORT_SENTINEL || x.w == GPUCOMM_LAMPORT_SENTINEL;
}

// Waits until src[k] holds data for every k set in `active`: every load is issued before any is
// checked, and only those still holding the sentinel are issued again.
template <int N>
__device__ __forceinline__ void lamport_poll_all(const uint4* const (&src)[N], uint4 (&vals)[N],
                                                 unsigned active) {
#pragma unroll
  for (int k = 0; k < N; ++k) {
    if ((active >> k) & 1u) vals[k] = ld_volatile_v4(src[k]);
  }
  for (;;) {
    bool pending = false;
#pragma unroll
    for (int k = 0; k < N; ++k) {
      if (((active >> k) & 1u) && lamport_pending(vals[k])) {
        vals[k] = ld_volatile_v4(src[k]);
        pending = pending || lamport_pending(vals[k]);
      }
    }
    if (!pending) break;
  }
}

__device__ __forceinline__ uint4* lamport_area(char* base, const PeerLayout& layout, int world,
                                               int slot, int sender) {
  return reinterpret_cast<uint4*>(base + layout.lamportOffset +
                                  (slot * world + sender) * layout.lamportRankStride);
}

// Writes the sentinel over vectors [0, length) of `areas` consecutive receive areas starting at
// `first`, `rankStride` bytes apart, spread over the whole grid. Peer buffers hold at most 256 MiB
// (MAX_PEER_BUFFER_BYTES on the host), so indices over all ranks' areas (at most 8 x 16 Mi
// vectors) fit in 32 bits, and so do the other Lamport indices divided below.
__device__ __forceinline__ void lamport_refill(char* first, long long rankStride, int areas,
                                               long long length) {
  const uint32_t total = static_cast<uint32_t>(length * areas);
  for (uint32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < total; j += gridDim.x * blockDim.x) {
    const uint32_t area = j / static_cast<uint32_t>(length);
    reinterpret_cast<uint4*>(first + area * rankStride)[j - area * length] = lamport_sentinel();
  }
}

template <typename T>
__device__ void lamport(const char* input, char* output, long long bytes, const PeerBases& peers,
                        const PeerLayout& layout, Control* control, int rank, int runtimeWorld,
                        int /* maxChunks: Lamport calls are small and need no pipelining */) {
  const int world = world_size(runtimeWorld);
  const long long fullVectors = bytes >> 4;
  const int tailBytes = static_cast<int>(bytes & 15);
  const long long vectors = fullVectors + (tailBytes ? 1 : 0);
  const uint32_t epoch = control->lamportEpoch[blockIdx.x] + 1;
  const int slot = epoch % 3;
  const int previousSlot = (epoch + 2) % 3;
  const long long previousVectors = control->lamportVectors[blockIdx.x][previousSlot];
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  char* self = peers.base[rank];

  const long long sends = vectors * world;
  if (sends <= 2 * stride) {
    // At most two (destination, vector) pairs per thread: both loads before either store.
    for (long long j = first; j < sends; j += 2 * stride) {
      const long long j2 = j + stride;
      const int s1 = static_cast<int>(static_cast<uint32_t>(j) / static_cast<uint32_t>(vectors));
      const long long v1 = j - s1 * vectors;
      const uint4 x1 = lamport_sanitize(load_input(input, v1, fullVectors, tailBytes));
      int s2 = 0;
      long long v2 = 0;
      uint4 x2 = make_uint4(0, 0, 0, 0);
      if (j2 < sends) {
        s2 = static_cast<int>(static_cast<uint32_t>(j2) / static_cast<uint32_t>(vectors));
        v2 = j2 - s2 * vectors;
        x2 = lamport_sanitize(load_input(input, v2, fullVectors, tailBytes));
      }
      st_volatile_v4(lamport_area(peers.base[peer_at(rank, s1, world)], layout, world, slot, rank) + v1, x1);
      if (j2 < sends) {
        st_volatile_v4(lamport_area(peers.base[peer_at(rank, s2, world)], layout, world, slot, rank) + v2, x2);
      }
    }
  } else {
    for (long long v = first; v < vectors; v += stride) {
      const uint4 x = lamport_sanitize(load_input(input, v, fullVectors, tailBytes));
#pragma unroll
      for (int s = 0; s < WORLD_BOUND; ++s) {
        if (s < world) {
          st_volatile_v4(lamport_area(peers.base[peer_at(rank, s, world)], layout, world, slot, rank) + v, x);
        }
      }
    }
  }

  // Refill what this rank received in the previous call while this call's data is on its way.
  lamport_refill(reinterpret_cast<char*>(lamport_area(self, layout, world, previousSlot, 0)),
                 layout.lamportRankStride, world, previousVectors);

  for (long long v = first; v < vectors; v += stride) {
    const uint4* src[WORLD_BOUND];
#pragma unroll
    for (int q = 0; q < WORLD_BOUND; ++q) src[q] = lamport_area(self, layout, world, slot, q) + v;
    uint4 vals[WORLD_BOUND];
    lamport_poll_all<WORLD_BOUND>(src, vals, (1u << world) - 1u);
    store_output(output, v, fullVectors, tailBytes, reduce_in_rank_order<T>(vals, world));
  }

  if (threadIdx.x == 0) {
    control->lamportVectors[blockIdx.x][slot] = vectors;
    control->lamportEpoch[blockIdx.x] = epoch;
  }
}

// ---------------------------------------------------------------------------------------------
// Lamport two-shot. Slice r of every rank's input lands in rank r's scatter slots; rank r polls
// them, reduces its slice and pushes the (sanitized) result into every rank's gather slots, where
// the ranks poll it. Same slot rotation and refill rule as the Lamport one-shot. The scatter runs
// over the input's vectors and the gather over (source, vector) pairs, each spread over the whole
// grid; the reduction of a slice vector stays with one thread, which waits on all ranks' copies of
// it at once.

__device__ __forceinline__ uint4* lamport2_area(char* base, const PeerLayout& layout, int world,
                                                int area, int slot, int sender) {
  return reinterpret_cast<uint4*>(base + layout.lamport2Offset +
                                  ((area * 3 + slot) * world + sender) * layout.lamport2RankStride);
}

template <typename T>
__device__ void lamport2(const char* input, char* output, long long bytes, const PeerBases& peers,
                         const PeerLayout& layout, Control* control, int rank, int runtimeWorld,
                         int /* maxChunks: unused */) {
  const int world = world_size(runtimeWorld);
  const long long fullVectors = bytes >> 4;
  const int tailBytes = static_cast<int>(bytes & 15);
  const long long vectors = fullVectors + (tailBytes ? 1 : 0);
  const long long part = vectors / world;
  const long long longest = vectors - (world - 1) * part;
  const uint32_t epoch = control->lamport2Epoch[blockIdx.x] + 1;
  const int slot = epoch % 3;
  const int previousSlot = (epoch + 2) % 3;
  const long long previousLongest = control->lamport2Vectors[blockIdx.x][previousSlot];
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  char* self = peers.base[rank];

  // Scatter: vector v goes to its slice owner's scatter slots (this rank's own slice to its own),
  // two vectors per thread and round, both loaded before either is stored. Each rank starts at its
  // own slice, so that in every round the ranks write to different owners rather than all to one.
  const long long shift = rank * part;
  for (long long j = first; j < vectors; j += 2 * stride) {
    const long long j2 = j + stride;
    const long long v1 = j + shift < vectors ? j + shift : j + shift - vectors;
    const long long v2 = j2 + shift < vectors ? j2 + shift : j2 + shift - vectors;
    const uint4 x1 = lamport_sanitize(load_input(input, v1, fullVectors, tailBytes));
    uint4 x2 = make_uint4(0, 0, 0, 0);
    if (j2 < vectors) x2 = lamport_sanitize(load_input(input, v2, fullVectors, tailBytes));
    const int t1 = slice_owner(v1, part, world);
    st_volatile_v4(lamport2_area(peers.base[t1], layout, world, 0, slot, rank) + (v1 - t1 * part), x1);
    if (j2 < vectors) {
      const int t2 = slice_owner(v2, part, world);
      st_volatile_v4(lamport2_area(peers.base[t2], layout, world, 0, slot, rank) + (v2 - t2 * part), x2);
    }
  }

  // Refill the previous call's scatter and gather slots while this call's slices travel.
  lamport_refill(reinterpret_cast<char*>(lamport2_area(self, layout, world, 0, previousSlot, 0)),
                 layout.lamport2RankStride, world, previousLongest);
  lamport_refill(reinterpret_cast<char*>(lamport2_area(self, layout, world, 1, previousSlot, 0)),
                 layout.lamport2RankStride, world, previousLongest);

  // Reduce this rank's slice and push the result to every other rank.
  const long long myStart = rank * part;
  const long long myLength = rank == world - 1 ? vectors - myStart : part;
  for (long long i = first; i < myLength; i += stride) {
    const uint4* src[WORLD_BOUND];
#pragma unroll
    for (int q = 0; q < WORLD_BOUND; ++q) src[q] = lamport2_area(self, layout, world, 0, slot, q) + i;
    uint4 vals[WORLD_BOUND];
    lamport_poll_all<WORLD_BOUND>(src, vals, (1u << world) - 1u);
    const uint4 sum = lamport_sanitize(reduce_in_rank_order<T>(vals, world));
#pragma unroll
    for (int s = 1; s < WORLD_BOUND; ++s) {
      if (s < world) {
        st_volatile_v4(lamport2_area(peers.base[peer_at(rank, s, world)], layout, world, 1, slot, rank) + i,
                       sum);
      }
    }
    store_output(output, myStart + i, fullVectors, tailBytes, sum);
  }

  // Gather the other ranks' reduced slices: (source step, index) pairs over the whole grid, two
  // per thread and round, polled together.
  const long long gathers = (world - 1) * longest;
  for (long long j = first; j < gathers; j += 2 * stride) {
    const uint4* src[2] = {nullptr, nullptr};
    long long out[2] = {0, 0};
    unsigned active = 0;
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const long long jk = j + k * stride;
      if (jk < gathers) {
        const int step = 1 + static_cast<int>(static_cast<uint32_t>(jk) / static_cast<uint32_t>(longest));
        const long long i = jk - (step - 1) * longest;
        const int source = peer_at(rank, step, world);
        const long long length = source == world - 1 ? vectors - source * part : part;
        if (i < length) {
          src[k] = lamport2_area(self, layout, world, 1, slot, source) + i;
          out[k] = source * part + i;
          active |= 1u << k;
        }
      }
    }
    uint4 vals[2];
    lamport_poll_all<2>(src, vals, active);
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      if ((active >> k) & 1u) store_output(output, out[k], fullVectors, tailBytes, vals[k]);
    }
  }

  if (threadIdx.x == 0) {
    control->lamport2Vectors[blockIdx.x][slot] = longest;
    control->lamport2Epoch[blockIdx.x] = epoch;
  }
}

// ---------------------------------------------------------------------------------------------
// Entry points: one per algorithm and element type. The host may launch them with programmatic
// dependent launch; each calls wait_for_previous_grid (peer_memory.cuh) before touching memory.

// Every entry point takes the host path's two parameters; only the *_wsh kernels use them. `call` is
// the parenthesized call of the algorithm with the entry point's parameters.
#define GPUCOMM_ENTRY_POINT(algorithm, suffix, call)                                            \
  extern "C" __global__ void __launch_bounds__(GPUCOMM_THREADS, 1)                              \
      gpucomm_##algorithm##_##suffix(const char* input, char* output, long long bytes,          \
                                     const __grid_constant__ PeerBases peers,                   \
                                     const __grid_constant__ PeerLayout layout, Control* control, \
                                     int rank, int world, int maxChunks, long long hostBytes,   \
                                     int hostChunks) {                                          \
    wait_for_previous_grid();                                                                   \
    call;                                                                                       \
  }

#define GPUCOMM_ALLREDUCE_KERNEL(algorithm, suffix, type) \
  GPUCOMM_ENTRY_POINT(algorithm, suffix,                  \
                      (algorithm<type>(input, output, bytes, peers, layout, control, rank, world, maxChunks)))

// oneshot_stream takes its pass size in the host path's first parameter.
#define GPUCOMM_ALLREDUCE_STREAM_KERNEL(algorithm, suffix, type)                               \
  GPUCOMM_ENTRY_POINT(algorithm, suffix,                                                       \
                      (algorithm<type>(input, output, bytes, peers, layout, control, rank, world, \
                                       maxChunks, hostBytes)))

#define GPUCOMM_ALLREDUCE_HOST_KERNEL(algorithm, suffix, type)                                 \
  GPUCOMM_ENTRY_POINT(algorithm, suffix,                                                       \
                      (algorithm<type>(input, output, bytes, peers, layout, control, rank, world, \
                                       maxChunks, hostBytes, hostChunks)))

GPUCOMM_ALLREDUCE_KERNEL(oneshot, bf16, __nv_bfloat16)
GPUCOMM_ALLREDUCE_KERNEL(oneshot, fp16, __half)
GPUCOMM_ALLREDUCE_KERNEL(oneshot, fp32, float)
GPUCOMM_ALLREDUCE_KERNEL(twoshot, bf16, __nv_bfloat16)
GPUCOMM_ALLREDUCE_KERNEL(twoshot, fp16, __half)
GPUCOMM_ALLREDUCE_KERNEL(twoshot, fp32, float)
GPUCOMM_ALLREDUCE_KERNEL(lamport, bf16, __nv_bfloat16)
GPUCOMM_ALLREDUCE_KERNEL(lamport, fp16, __half)
GPUCOMM_ALLREDUCE_KERNEL(lamport, fp32, float)
GPUCOMM_ALLREDUCE_KERNEL(lamport2, bf16, __nv_bfloat16)
GPUCOMM_ALLREDUCE_KERNEL(lamport2, fp16, __half)
GPUCOMM_ALLREDUCE_KERNEL(lamport2, fp32, float)
GPUCOMM_ALLREDUCE_KERNEL(oneshot_ws, bf16, __nv_bfloat16)
GPUCOMM_ALLREDUCE_KERNEL(oneshot_ws, fp16, __half)
GPUCOMM_ALLREDUCE_KERNEL(oneshot_ws, fp32, float)
GPUCOMM_ALLREDUCE_KERNEL(twoshot_ws, bf16, __nv_bfloat16)
GPUCOMM_ALLREDUCE_KERNEL(twoshot_ws, fp16, __half)
GPUCOMM_ALLREDUCE_KERNEL(twoshot_ws, fp32, float)
GPUCOMM_ALLREDUCE_HOST_KERNEL(oneshot_wsh, bf16, __nv_bfloat16)
GPUCOMM_ALLREDUCE_HOST_KERNEL(oneshot_wsh, fp16, __half)
GPUCOMM_ALLREDUCE_HOST_KERNEL(oneshot_wsh, fp32, float)
GPUCOMM_ALLREDUCE_HOST_KERNEL(twoshot_wsh, bf16, __nv_bfloat16)
GPUCOMM_ALLREDUCE_HOST_KERNEL(twoshot_wsh, fp16, __half)
GPUCOMM_ALLREDUCE_HOST_KERNEL(twoshot_wsh, fp32, float)
GPUCOMM_ALLREDUCE_STREAM_KERNEL(oneshot_stream, bf16, __nv_bfloat16)
GPUCOMM_ALLREDUCE_STREAM_KERNEL(oneshot_stream, fp16, __half)
GPUCOMM_ALLREDUCE_STREAM_KERNEL(oneshot_stream, fp32, float)

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
