// All-gather and reduce-scatter kernels of gpucomm's CUDA backend, over CUDA IPC peer memory.
//
// The communicator's gather memory is a second peer-memory allocation per rank with the layout of
// allreduce.cu's PeerLayout; these kernels use three of its regions:
//
//   data flags     uint32 [MAX_BLOCKS][MAX_RANKS]   (PeerLayout.oneshotFlagsOffset)
//   start flags    uint32 [3][MAX_BLOCKS][MAX_RANKS] (PeerLayout.twoshotFlagsOffset): set 0 for the
//                  kernels' start barrier; set 1 row 0 for the copy-engine start barrier, rows
//                  1..16 for the copy engines' "piece landed" words (column = sender, one row per
//                  part of the slot); set 2 rows 1..16 for their "part in use" words (column =
//                  receiver). Stream memory operations, not kernels, raise and clear those.
//   receive slots  [world][slotBytes]                (PeerLayout.oneshotRecvOffset): slot s of
//                  rank r holds what rank s sent to rank r; the pipelined kernels use its two
//                  halves alternately, one round each
//   parity slots   [2 parity][world][paritySlotBytes] (PeerLayout.twoshotRecvOffset): the
//                  single-pass kernels' receive slots, parity = epoch & 1
//   LL slots       [2 parity][world][llSlotBytes]     (PeerLayout.lamportOffset): the LL kernels'
//                  receive slots, parity = epoch & 1, written by nothing else; they start filled
//                  with a word (0x80008000) that no epoch reaches in 2^31 calls
//
// A caller's buffers are never read remotely: each rank pushes its bytes into the peers' receive
// slots (with its threads, or with the copy engines through cuMemcpyAsync on the peer mapping), and
// each rank reads only its own memory. The kernels precede the pushes with a start barrier (every
// peer has entered this call, so it has finished reading its slots for the previous one) and the
// reads with a data barrier (every peer has pushed). The copy-engine variant meets the peers once
// per call (ce_start), then streams pieces through the parts of each slot with one-word
// tokens per (sender, receiver, part) that the streams raise and clear (GatherScatter and
// CopyEngineGather describe them). Epochs live in device memory (Control) and are advanced by the
// kernels, so CUDA-graph replays see fresh epochs; the copy engines' tokens go 0 -> 1 -> 0 within
// a call, so replays see them at rest.
//
//   allgather_oneshot     small calls in one pass without a start barrier: push this rank's
//                         bytes into every peer's parity slot and its own output; raise the data
//                         flag; wait for the peers' data flags; copy every peer's slot out.
//   reducescatter_oneshot the same for reduce-scatter: push shard q to rank q's parity slot; data
//                         flags; sum every rank's shard in rank order 0..n-1 in fp32.
//   allgather_pipelined   large calls in one launch: start barrier, then rounds of roundBytes
//                         that alternate between the two halves of the receive slots; half of
//                         each block's threads push round k while the other half copies out round
//                         k-1, so the local copy-out overlaps the NVLink pushes, and a peer may
//                         reuse a half once this rank has copied it out (free flag). The
//                         _serial kernels (GPUCOMM_GATHER_OVERLAP=off) let the whole block push
//                         round k, then copy out round k-1, in turns.
//   reducescatter_pipelined  the same rounds, with the rank-order fp32 sum as the copy-out.
//   allgather_ll          the smallest calls with no flag at all, as NCCL's LL protocol: every
//                         16-byte vector travels as two 16-byte lines of {data, epoch, data,
//                         epoch}, each half stored at once, so a receiver polling its own LL slot
//                         knows a line has landed when both of its flags equal this call's epoch.
//                         No fence and no flag round trip: the data is the signal, at twice the
//                         bytes on the wire. Bit-exact for any data (unlike a sentinel value).
//   reducescatter_ll      the same for reduce-scatter, summing in rank order in fp32.
//
// The LL kernels keep epochs of their own (next_ll_epoch), which every LL block advances once per
// call, so consecutive LL calls alternate parity in every block. They reuse a parity's slots two
// LL calls later, when every peer has finished reading them: a rank in LL call n has finished LL
// call n - 1, for which it received every peer's data, which a peer sends only after finishing
// everything before, LL call n - 2 included. Stale lines carry an earlier call's epoch, never the
// current one.
//
// Why the single-pass kernels need no start barrier: every flag kernel (single pass and pipelined)
// of a communicator runs the same grid and advances every block's epoch alike, so consecutive
// single-pass calls write alternate parities in every block. A single-pass call with epoch e
// writes parity e & 1, whose last reader was a launch with epoch e - 2 or earlier; this rank has
// since finished the launch with epoch e - 1, which waited for every peer's data flag, so every
// peer had started that launch and finished the ones before it. The kernels are launched without
// programmatic dependent launch, so a launch starts only after the one before it on its stream has
// finished. (The grid must be the same: blocks whose epochs drifted apart would write one parity
// where a peer's other blocks still read it in the call before.)
//   ce_start              the copy-engine variant's start barrier (one block).
//   ce_sum_<dtype>        the rank-order fp32 sum of one copy-engine piece that has landed.
//
// Sums read ranks in the fixed order 0..n-1 and accumulate in fp32, so both variants produce
// bit-identical results (and the same as the CPU backend's). Sizes are whole 16-byte vectors.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "lanes.cuh"
#include "peer_memory.cuh"

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
  long long roundBytes;
  long long parityOffset;
  long long paritySlotBytes;
  long long llOffset;
  long long llSlotBytes;
};

// Per-communicator epochs in this rank's own memory.
struct GatherControl {
  uint32_t kernelEpoch[GPUCOMM_MAX_BLOCKS];  // the flag kernels' (single-pass and pipelined)
  uint32_t copyEngineEpoch;
  uint32_t llEpoch[GPUCOMM_MAX_BLOCKS];  // the LL kernels' own
};

#define FLAG_SET_WORDS (GPUCOMM_MAX_BLOCKS * GPUCOMM_MAX_RANKS)

__device__ __forceinline__ uint32_t* flag_word(char* base, long long setOffset, int row, int rank) {
  return reinterpret_cast<uint32_t*>(base + setOffset) + row * GPUCOMM_MAX_RANKS + rank;
}

// The threads that run a part of a kernel: the whole block, or one of the two groups of the
// pipelined kernels, which push one round while the other group copies out the round before.
struct Threads {
  int index;    // this thread's index among them
  int count;    // how many they are (a multiple of 32)
  int barrier;  // the named barrier they meet at; 0 is the whole block's (__syncthreads)
};

__device__ __forceinline__ Threads whole_block() {
  return Threads{static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), 0};
}

// The threads meet; like __syncthreads, this orders their memory operations for one another.
__device__ __forceinline__ void meet(const Threads& threads) {
  if (threads.barrier == 0) {
    __syncthreads();
  } else {
    asm volatile("bar.sync %0, %1;" ::"r"(threads.barrier), "r"(threads.count) : "memory");
  }
}

// Thread t < world (t != rank) writes `epoch` into rank t's row `row` at this rank's column.
// With `release`, everything `threads` wrote before they last met is visible to rank t before the
// flag is.
__device__ __forceinline__ void raise(const PeerBases& peers, long long setOffset, int row,
                                      int rank, int world, uint32_t epoch, bool release,
                                      Threads threads = whole_block()) {
  int t = threads.index;
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
// (wrap-safe: epochs only grow); then all of `threads` proceed.
__device__ __forceinline__ void await(const PeerBases& peers, long long setOffset, int row,
                                      int rank, int world, uint32_t epoch, bool acquire,
                                      Threads threads = whole_block()) {
  int t = threads.index;
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
  meet(threads);
}

__device__ __forceinline__ char* slot(const PeerBases& peers, const GatherLayout& layout,
                                      int owner, int sender) {
  return peers.base[owner] + layout.slotsOffset + sender * layout.slotBytes;
}

// This block's share of a pipelined round of `vectors` 16-byte vectors: its share of a full round,
// cut at the round's end, so a block touches the same slot bytes in every round and a peer's free
// flag for this block covers everything the peer's block writes next.
__device__ __forceinline__ void round_range(long long roundVectors, long long vectors,
                                            long long& first, long long& end) {
  long long perBlock = (roundVectors + gridDim.x - 1) / gridDim.x;
  first = min(vectors, perBlock * blockIdx.x);
  end = min(vectors, first + perBlock);
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

// The LL kernels' next epoch for this block. Only they advance it, and every LL launch of a
// communicator runs the same grid, so every LL block holds the same epoch after each call: a line a
// block waits for carries this call's epoch only if this call wrote it, whichever block of an
// earlier call (of another size, so another cut of the vectors into blocks) wrote that line before.
__device__ __forceinline__ uint32_t next_ll_epoch(GatherControl* control) {
  __shared__ uint32_t epoch;
  if (threadIdx.x == 0) {
    epoch = control->llEpoch[blockIdx.x] + 1;
    control->llEpoch[blockIdx.x] = epoch;
  }
  __syncthreads();
  return epoch;
}

// Takes `count` consecutive epochs for this block and returns the first.
__device__ __forceinline__ uint32_t next_kernel_epochs(GatherControl* control, uint32_t count) {
  __shared__ uint32_t first;
  if (threadIdx.x == 0) {
    first = control->kernelEpoch[blockIdx.x] + 1;
    control->kernelEpoch[blockIdx.x] = first + count - 1;
  }
  __syncthreads();
  return first;
}

// A single-pass call raises the start flag that the pipelined kernels' start barrier waits on,
// without waiting for anyone: the flags compare epochs as signed 32-bit differences, so a flag left
// 2^31 single-pass calls behind would read as ahead. Raising it is safe: a peer's pipelined call
// waits for a value of its own call's epochs, which this rank reaches only in that call or later.
__device__ __forceinline__ void raise_start_flag(const PeerBases& peers, const GatherLayout& layout,
                                                 int rank, int world, uint32_t epoch) {
  raise(peers, layout.startFlagsOffset, blockIdx.x, rank, world, epoch, false);
}

// Rank `owner`'s receive slots of one parity (single-pass kernels): sender s at s * stride.
__device__ __forceinline__ char* parity_slots(const PeerBases& peers, const GatherLayout& layout,
                                              int owner, int parity, int world) {
  return peers.base[owner] + layout.parityOffset +
         static_cast<long long>(parity) * world * layout.paritySlotBytes;
}

// Rank `owner`'s receive slots, half `half` (pipelined kernels): sender s at s * slotBytes.
__device__ __forceinline__ char* half_slots(const PeerBases& peers, const GatherLayout& layout,
                                            int owner, int half) {
  return peers.base[owner] + layout.slotsOffset + half * (layout.slotBytes / 2);
}

#define GPUCOMM_UNROLL 4

// Copies vectors [first, end) of `from` to `to` with `threads`, several loads in flight.
__device__ __forceinline__ void copy_vectors(const uint4* from, uint4* to, long long first,
                                             long long end, Threads threads = whole_block()) {
  for (long long v = first + threads.index; v < end; v += GPUCOMM_UNROLL * threads.count) {
    uint4 value[GPUCOMM_UNROLL];
#pragma unroll
    for (int u = 0; u < GPUCOMM_UNROLL; ++u) {
      long long i = v + u * threads.count;
      if (i < end) value[u] = __ldcg(from + i);
    }
#pragma unroll
    for (int u = 0; u < GPUCOMM_UNROLL; ++u) {
      long long i = v + u * threads.count;
      if (i < end) to[i] = value[u];
    }
  }
}

// Vectors [first, end) of `input` to this rank's own output and to every peer's receive slot for
// this rank: `peerSlots[r]` is rank r's slot for this rank (rank's own entry unused).
__device__ __forceinline__ void push_to_all(const uint4* input, uint4* own, char* const* peerSlots,
                                            int rank, int world, long long first, long long end,
                                            Threads threads = whole_block()) {
  for (long long v = first + threads.index; v < end; v += GPUCOMM_UNROLL * threads.count) {
    uint4 value[GPUCOMM_UNROLL];
#pragma unroll
    for (int u = 0; u < GPUCOMM_UNROLL; ++u) {
      long long i = v + u * threads.count;
      if (i < end) value[u] = __ldg(input + i);
    }
#pragma unroll
    for (int u = 0; u < GPUCOMM_UNROLL; ++u) {
      long long i = v + u * threads.count;
      if (i < end) {
        own[i] = value[u];
        for (int step = 1; step < world; ++step) {
          int peer = rank + step < world ? rank + step : rank + step - world;
          reinterpret_cast<uint4*>(peerSlots[peer])[i] = value[u];
        }
      }
    }
  }
}

// A small all-gather in one pass (no start barrier; see the top of this file): `bytes` of this
// rank's input land at `output + r * outputStride` for every rank r.
extern "C" __global__ void __launch_bounds__(512, 1)
    gpucomm_allgather_oneshot(const char* input, char* output, long long bytes,
                              long long outputStride, PeerBases peers, GatherLayout layout,
                              GatherControl* control, int rank, int world) {
  uint32_t epoch = next_kernel_epoch(control);
  raise_start_flag(peers, layout, rank, world, epoch);
  int parity = epoch & 1;
  long long first, end;
  block_range(bytes / 16, first, end);
  char* peerSlots[GPUCOMM_MAX_RANKS];
  for (int r = 0; r < world; ++r) {
    peerSlots[r] = parity_slots(peers, layout, r, parity, world) + rank * layout.paritySlotBytes;
  }
  push_to_all(reinterpret_cast<const uint4*>(input),
              reinterpret_cast<uint4*>(output + rank * outputStride), peerSlots, rank, world,
              first, end);
  __syncthreads();
  raise(peers, layout.dataFlagsOffset, blockIdx.x, rank, world, epoch, true);
  await(peers, layout.dataFlagsOffset, blockIdx.x, rank, world, epoch, true);
  const char* mine = parity_slots(peers, layout, rank, parity, world);
  for (int step = 1; step < world; ++step) {
    int sender = (rank + step) % world;
    copy_vectors(reinterpret_cast<const uint4*>(mine + sender * layout.paritySlotBytes),
                 reinterpret_cast<uint4*>(output + sender * outputStride), first, end);
  }
}

// The pipelined kernels' two groups of threads: the first half of the block pushes the rounds, the
// second copies them out (or sums them) one round behind, so the local copy-out of round k - 1
// runs while round k crosses NVLink instead of after it. Each group meets at its own barrier.
__device__ __forceinline__ bool pushes(Threads& threads) {
  int half = static_cast<int>(blockDim.x) / 2;
  bool pusher = static_cast<int>(threadIdx.x) < half;
  threads = Threads{pusher ? static_cast<int>(threadIdx.x) : static_cast<int>(threadIdx.x) - half,
                    half, pusher ? 1 : 2};
  return pusher;
}

// Where round k of a call of `bytes` per rank starts, and this block's share [first, end) of its
// vectors.
__device__ __forceinline__ long long round_share(const GatherLayout& layout, long long bytes,
                                                 long long k, long long& first, long long& end) {
  long long start = k * layout.roundBytes;
  round_range(layout.roundBytes / 16, min(layout.roundBytes, bytes - start) / 16, first, end);
  return start;
}

// The pipelined kernels' protocol for a call of `bytes` per rank in rounds of layout.roundBytes
// over the two halves of the receive slots. `round` says what a round moves:
// round.push(k, start, first, end, threads) pushes this block's share of round k into half k & 1
// of the peers' slots, and round.drain(j, ...) copies out (or sums) round j from half j & 1 of this
// rank's own.
//
// Half of each block pushes round k once the peers have drained round k - 2 (which used the same
// half); the other half drains each round once the peers' data flags say it has landed, and frees
// its half for the peers. The start flag a peer waits on gets two writers here, the pushers (the
// call's first epoch) and the draining threads (epoch + 2 of a round drained). They cannot
// overtake each other: the draining threads raise a free flag only after a peer's data flag of this
// call, which the peer raised after its start barrier had read the pushers' first epoch.
template <typename Round>
__device__ __forceinline__ void overlapped_rounds(long long bytes, const PeerBases& peers,
                                                  const GatherLayout& layout,
                                                  GatherControl* control, int rank, int world,
                                                  const Round& round) {
  long long rounds = (bytes + layout.roundBytes - 1) / layout.roundBytes;
  uint32_t base = next_kernel_epochs(control, static_cast<uint32_t>(rounds));
  Threads threads;
  if (pushes(threads)) {
    raise(peers, layout.startFlagsOffset, blockIdx.x, rank, world, base, false, threads);
    await(peers, layout.startFlagsOffset, blockIdx.x, rank, world, base, false, threads);
    for (long long k = 0; k < rounds; ++k) {
      uint32_t epoch = base + static_cast<uint32_t>(k);
      if (k >= 2) {
        await(peers, layout.startFlagsOffset, blockIdx.x, rank, world, epoch, true, threads);
      }
      long long first, end;
      long long start = round_share(layout, bytes, k, first, end);
      round.push(k, start, first, end, threads);
      meet(threads);
      raise(peers, layout.dataFlagsOffset, blockIdx.x, rank, world, epoch, true, threads);
    }
    return;
  }
  for (long long j = 0; j < rounds; ++j) {
    uint32_t epoch = base + static_cast<uint32_t>(j);
    await(peers, layout.dataFlagsOffset, blockIdx.x, rank, world, epoch, true, threads);
    long long first, end;
    long long start = round_share(layout, bytes, j, first, end);
    round.drain(j, start, first, end, threads);
    if (j + 2 < rounds) {
      // Only rounds of this call are announced, so the flag stays below the next call's epochs.
      meet(threads);
      raise(peers, layout.startFlagsOffset, blockIdx.x, rank, world, epoch + 2, true, threads);
    }
  }
}

// The same protocol as the first pipelined kernels ran it (GPUCOMM_GATHER_OVERLAP=off): the whole
// block pushes round k, then drains round k - 1, so the drain and the pushes take turns.
template <typename Round>
__device__ __forceinline__ void alternating_rounds(long long bytes, const PeerBases& peers,
                                                   const GatherLayout& layout,
                                                   GatherControl* control, int rank, int world,
                                                   const Round& round) {
  long long rounds = (bytes + layout.roundBytes - 1) / layout.roundBytes;
  uint32_t base = next_kernel_epochs(control, static_cast<uint32_t>(rounds));
  raise(peers, layout.startFlagsOffset, blockIdx.x, rank, world, base, false);
  await(peers, layout.startFlagsOffset, blockIdx.x, rank, world, base, false);
  for (long long k = 0; k <= rounds; ++k) {
    if (k < rounds) {
      uint32_t epoch = base + static_cast<uint32_t>(k);
      if (k >= 2) {
        // The peers have drained round k - 2, which used this half.
        await(peers, layout.startFlagsOffset, blockIdx.x, rank, world, epoch, true);
      }
      long long first, end;
      long long start = round_share(layout, bytes, k, first, end);
      round.push(k, start, first, end, whole_block());
      __syncthreads();
      raise(peers, layout.dataFlagsOffset, blockIdx.x, rank, world, epoch, true);
    }
    if (k >= 1) {
      long long j = k - 1;
      uint32_t epoch = base + static_cast<uint32_t>(j);
      await(peers, layout.dataFlagsOffset, blockIdx.x, rank, world, epoch, true);
      long long first, end;
      long long start = round_share(layout, bytes, j, first, end);
      round.drain(j, start, first, end, whole_block());
      if (j + 2 < rounds) {
        // Only rounds of this call are announced, so the flag stays below the next call's epochs.
        __syncthreads();
        raise(peers, layout.startFlagsOffset, blockIdx.x, rank, world, epoch + 2, true);
      }
    }
  }
}

// An all-gather round: this rank's bytes to every peer's slot (and its own output), then every
// peer's bytes from this rank's slots to the output.
struct AllGatherRound {
  const char* input;
  char* output;
  long long outputStride;
  const PeerBases& peers;
  const GatherLayout& layout;
  int rank;
  int world;

  __device__ __forceinline__ void push(long long k, long long start, long long first,
                                       long long end, const Threads& threads) const {
    char* peerSlots[GPUCOMM_MAX_RANKS];
    for (int r = 0; r < world; ++r) {
      peerSlots[r] = half_slots(peers, layout, r, k & 1) + rank * layout.slotBytes;
    }
    push_to_all(reinterpret_cast<const uint4*>(input + start),
                reinterpret_cast<uint4*>(output + rank * outputStride + start), peerSlots, rank,
                world, first, end, threads);
  }

  __device__ __forceinline__ void drain(long long j, long long start, long long first,
                                        long long end, const Threads& threads) const {
    const char* mine = half_slots(peers, layout, rank, j & 1);
    for (int step = 1; step < world; ++step) {
      int sender = (rank + step) % world;
      copy_vectors(reinterpret_cast<const uint4*>(mine + sender * layout.slotBytes),
                   reinterpret_cast<uint4*>(output + sender * outputStride + start), first, end,
                   threads);
    }
  }
};

// A large all-gather in one launch, half of each block copying out while the other half pushes.
extern "C" __global__ void __launch_bounds__(512, 1)
    gpucomm_allgather_pipelined(const char* input, char* output, long long bytes,
                                long long outputStride, PeerBases peers, GatherLayout layout,
                                GatherControl* control, int rank, int world) {
  overlapped_rounds(bytes, peers, layout, control, rank, world,
                    AllGatherRound{input, output, outputStride, peers, layout, rank, world});
}

// The first pipelined all-gather (GPUCOMM_GATHER_OVERLAP=off): push and copy-out take turns.
extern "C" __global__ void __launch_bounds__(512, 1)
    gpucomm_allgather_pipelined_serial(const char* input, char* output, long long bytes,
                                       long long outputStride, PeerBases peers,
                                       GatherLayout layout, GatherControl* control, int rank,
                                       int world) {
  alternating_rounds(bytes, peers, layout, control, rank, world,
                     AllGatherRound{input, output, outputStride, peers, layout, rank, world});
}

// output[v] = sum over ranks r = 0..world-1 of (r == rank ? ownShard : slots + r * slotStride)[v],
// in fp32; `slots` are this rank's own receive slots. Each thread sums several vectors at once, so
// that several loads per rank are in flight (one at a time left the sum latency-bound).
template <typename T>
__device__ __forceinline__ void reduce_slots(const char* ownShard, char* output,
                                             const char* slots, long long slotStride, int rank,
                                             int world, long long first, long long end,
                                             Threads threads = whole_block()) {
  for (long long v = first + threads.index; v < end; v += GPUCOMM_UNROLL * threads.count) {
    float acc[GPUCOMM_UNROLL][Lanes<T>::count];
    for (int r = 0; r < world; ++r) {
      const uint4* from = r == rank ? reinterpret_cast<const uint4*>(ownShard)
                                    : reinterpret_cast<const uint4*>(slots + r * slotStride);
      uint4 value[GPUCOMM_UNROLL];
#pragma unroll
      for (int u = 0; u < GPUCOMM_UNROLL; ++u) {
        long long i = v + u * threads.count;
        if (i < end) value[u] = r == rank ? __ldg(from + i) : __ldcg(from + i);
      }
#pragma unroll
      for (int u = 0; u < GPUCOMM_UNROLL; ++u) {
        if (v + u * threads.count < end) Lanes<T>::add(acc[u], value[u], r == 0);
      }
    }
#pragma unroll
    for (int u = 0; u < GPUCOMM_UNROLL; ++u) {
      long long i = v + u * threads.count;
      if (i < end) reinterpret_cast<uint4*>(output)[i] = Lanes<T>::pack(acc[u]);
    }
  }
}

// A small reduce-scatter in one pass (no start barrier): shard q starts at
// `input + q * inputStride` and is `bytes` long; this rank's reduced shard lands at `output`.
template <typename T>
__device__ __forceinline__ void reducescatter_oneshot(const char* input, char* output,
                                                      long long bytes, long long inputStride,
                                                      const PeerBases& peers,
                                                      const GatherLayout& layout,
                                                      GatherControl* control, int rank,
                                                      int world) {
  uint32_t epoch = next_kernel_epoch(control);
  raise_start_flag(peers, layout, rank, world, epoch);
  int parity = epoch & 1;
  long long first, end;
  block_range(bytes / 16, first, end);
  for (int step = 1; step < world; ++step) {
    int peer = (rank + step) % world;
    char* to = parity_slots(peers, layout, peer, parity, world) + rank * layout.paritySlotBytes;
    copy_vectors(reinterpret_cast<const uint4*>(input + peer * inputStride),
                 reinterpret_cast<uint4*>(to), first, end);
  }
  __syncthreads();
  raise(peers, layout.dataFlagsOffset, blockIdx.x, rank, world, epoch, true);
  await(peers, layout.dataFlagsOffset, blockIdx.x, rank, world, epoch, true);
  reduce_slots<T>(input + rank * inputStride, output,
                  parity_slots(peers, layout, rank, parity, world), layout.paritySlotBytes, rank,
                  world, first, end);
}

// A reduce-scatter round: shard q of this rank's input to rank q's slot, then the rank-order fp32
// sum of this rank's shard from its own input and its slots.
template <typename T>
struct ReduceScatterRound {
  const char* input;
  char* output;
  long long inputStride;
  const PeerBases& peers;
  const GatherLayout& layout;
  int rank;
  int world;

  __device__ __forceinline__ void push(long long k, long long start, long long first,
                                       long long end, const Threads& threads) const {
    for (int step = 1; step < world; ++step) {
      int peer = (rank + step) % world;
      char* to = half_slots(peers, layout, peer, k & 1) + rank * layout.slotBytes;
      copy_vectors(reinterpret_cast<const uint4*>(input + peer * inputStride + start),
                   reinterpret_cast<uint4*>(to), first, end, threads);
    }
  }

  __device__ __forceinline__ void drain(long long j, long long start, long long first,
                                        long long end, const Threads& threads) const {
    reduce_slots<T>(input + rank * inputStride + start, output + start,
                    half_slots(peers, layout, rank, j & 1), layout.slotBytes, rank, world, first,
                    end, threads);
  }
};

// LL kernels -----------------------------------------------------------------------------------

// Rank `owner`'s LL slot of one parity for `sender`, as 16-byte lines.
__device__ __forceinline__ uint4* ll_slot(const PeerBases& peers, const GatherLayout& layout,
                                          int owner, int parity, int world, int sender) {
  return reinterpret_cast<uint4*>(peers.base[owner] + layout.llOffset +
                                  (static_cast<long long>(parity) * world + sender) *
                                      layout.llSlotBytes);
}

__device__ __forceinline__ void st_ll_line(uint4* line, uint32_t a, uint32_t b, uint32_t flag) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(line), "r"(a), "r"(flag),
               "r"(b), "r"(flag)
               : "memory");
}

__device__ __forceinline__ uint4 ld_ll_line(const uint4* line) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(line)
               : "memory");
  return v;
}

// Vector v of 16 bytes as lines 2v and 2v + 1 of an LL slot, each carrying 8 bytes and the flag
// beside each 4 (an 8-byte half of a line is written at once, so a matching flag vouches for the
// data word next to it).
__device__ __forceinline__ void push_ll(uint4* slot, long long v, uint4 x, uint32_t flag) {
  st_ll_line(slot + 2 * v, x.x, x.y, flag);
  st_ll_line(slot + 2 * v + 1, x.z, x.w, flag);
}

__device__ __forceinline__ bool ll_landed(uint4 lo, uint4 hi, uint32_t flag) {
  return lo.y == flag && lo.w == flag && hi.y == flag && hi.w == flag;
}

// Waits for vector v of every peer in this rank's LL slots (sender s's at mine + s * slotLines),
// all loads in flight before any is checked and only the ones not yet landed issued again; returns
// them in `values` (this rank's own entry untouched).
__device__ __forceinline__ void wait_ll(const uint4* mine, long long slotLines, long long v,
                                        int rank, int world, uint32_t flag,
                                        uint4 (&values)[GPUCOMM_MAX_RANKS]) {
  uint4 lo[GPUCOMM_MAX_RANKS], hi[GPUCOMM_MAX_RANKS];
#pragma unroll
  for (int r = 0; r < GPUCOMM_MAX_RANKS; ++r) {
    if (r < world && r != rank) {
      lo[r] = ld_ll_line(mine + r * slotLines + 2 * v);
      hi[r] = ld_ll_line(mine + r * slotLines + 2 * v + 1);
    }
  }
  for (;;) {
    bool pending = false;
#pragma unroll
    for (int r = 0; r < GPUCOMM_MAX_RANKS; ++r) {
      if (r < world && r != rank && !ll_landed(lo[r], hi[r], flag)) {
        lo[r] = ld_ll_line(mine + r * slotLines + 2 * v);
        hi[r] = ld_ll_line(mine + r * slotLines + 2 * v + 1);
        pending = pending || !ll_landed(lo[r], hi[r], flag);
      }
    }
    if (!pending) break;
  }
#pragma unroll
  for (int r = 0; r < GPUCOMM_MAX_RANKS; ++r) {
    if (r < world && r != rank) values[r] = make_uint4(lo[r].x, lo[r].z, hi[r].x, hi[r].z);
  }
}

// A small all-gather with the data as its own signal: `bytes` of this rank's input land at
// `output + r * outputStride` for every rank r.
extern "C" __global__ void __launch_bounds__(512, 1)
    gpucomm_allgather_ll(const char* input, char* output, long long bytes, long long outputStride,
                         PeerBases peers, GatherLayout layout, GatherControl* control, int rank,
                         int world) {
  const uint32_t epoch = next_ll_epoch(control);
  const int parity = epoch & 1;
  long long first, end;
  block_range(bytes / 16, first, end);
  const uint4* in = reinterpret_cast<const uint4*>(input);
  uint4* own = reinterpret_cast<uint4*>(output + rank * outputStride);
  for (long long v = first + threadIdx.x; v < end; v += blockDim.x) {
    const uint4 x = __ldg(in + v);
    for (int step = 1; step < world; ++step) {
      const int peer = rank + step < world ? rank + step : rank + step - world;
      push_ll(ll_slot(peers, layout, peer, parity, world, rank), v, x, epoch);
    }
    own[v] = x;
  }
  const uint4* mine = ll_slot(peers, layout, rank, parity, world, 0);
  const long long slotLines = layout.llSlotBytes / 16;
  for (long long v = first + threadIdx.x; v < end; v += blockDim.x) {
    uint4 values[GPUCOMM_MAX_RANKS];
    wait_ll(mine, slotLines, v, rank, world, epoch, values);
#pragma unroll
    for (int r = 0; r < GPUCOMM_MAX_RANKS; ++r) {
      if (r < world && r != rank) reinterpret_cast<uint4*>(output + r * outputStride)[v] = values[r];
    }
  }
}

// A small reduce-scatter with the data as its own signal: shard q starts at
// `input + q * inputStride` and is `bytes` long; this rank's reduced shard, summed in rank order
// in fp32 as every other kernel sums it, lands at `output`.
template <typename T>
__device__ __forceinline__ void reducescatter_ll(const char* input, char* output, long long bytes,
                                                 long long inputStride, const PeerBases& peers,
                                                 const GatherLayout& layout,
                                                 GatherControl* control, int rank, int world) {
  const uint32_t epoch = next_ll_epoch(control);
  const int parity = epoch & 1;
  long long first, end;
  block_range(bytes / 16, first, end);
  for (long long v = first + threadIdx.x; v < end; v += blockDim.x) {
    for (int step = 1; step < world; ++step) {
      const int peer = rank + step < world ? rank + step : rank + step - world;
      const uint4 x = __ldg(reinterpret_cast<const uint4*>(input + peer * inputStride) + v);
      push_ll(ll_slot(peers, layout, peer, parity, world, rank), v, x, epoch);
    }
  }
  const uint4* ownShard = reinterpret_cast<const uint4*>(input + rank * inputStride);
  const uint4* mine = ll_slot(peers, layout, rank, parity, world, 0);
  const long long slotLines = layout.llSlotBytes / 16;
  for (long long v = first + threadIdx.x; v < end; v += blockDim.x) {
    const uint4 own = __ldg(ownShard + v);
    uint4 values[GPUCOMM_MAX_RANKS];
    wait_ll(mine, slotLines, v, rank, world, epoch, values);
    float acc[Lanes<T>::count];
#pragma unroll
    for (int r = 0; r < GPUCOMM_MAX_RANKS; ++r) {
      if (r < world) Lanes<T>::add(acc, r == rank ? own : values[r], r == 0);
    }
    reinterpret_cast<uint4*>(output)[v] = Lanes<T>::pack(acc);
  }
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

// The copy-engine sum of one piece: output[v] = the rank-order fp32 sum of this rank's own shard
// and what every peer pushed into `slots` (sender r's piece at slots + r * slotStride). The copy
// engines and stream memory operations have already waited for every peer's piece, so this kernel
// only sums; it runs on the drain stream while the engines push the next piece.
template <typename T>
__device__ __forceinline__ void ce_sum(const char* ownShard, char* output, long long bytes,
                                       const char* slots, long long slotStride, int rank,
                                       int world) {
  long long first, end;
  block_range(bytes / 16, first, end);
  reduce_slots<T>(ownShard, output, slots, slotStride, rank, world, first, end);
}

#define GPUCOMM_DTYPE_KERNELS(NAME, T)                                                          \
  extern "C" __global__ void __launch_bounds__(512, 1) gpucomm_reducescatter_oneshot_##NAME(   \
      const char* input, char* output, long long bytes, long long inputStride, PeerBases peers, \
      GatherLayout layout, GatherControl* control, int rank, int world) {                        \
    reducescatter_oneshot<T>(input, output, bytes, inputStride, peers, layout, control, rank,   \
                             world);                                                             \
  }                                                                                              \
  extern "C" __global__ void __launch_bounds__(512, 1) gpucomm_reducescatter_pipelined_##NAME( \
      const char* input, char* output, long long bytes, long long inputStride, PeerBases peers, \
      GatherLayout layout, GatherControl* control, int rank, int world) {                        \
    overlapped_rounds(bytes, peers, layout, control, rank, world,                               \
                      ReduceScatterRound<T>{input, output, inputStride, peers, layout, rank,     \
                                            world});                                             \
  }                                                                                              \
  extern "C" __global__ void __launch_bounds__(512, 1)                                           \
      gpucomm_reducescatter_pipelined_serial_##NAME(                                             \
          const char* input, char* output, long long bytes, long long inputStride,               \
          PeerBases peers, GatherLayout layout, GatherControl* control, int rank, int world) {   \
    alternating_rounds(bytes, peers, layout, control, rank, world,                              \
                       ReduceScatterRound<T>{input, output, inputStride, peers, layout, rank,    \
                                             world});                                            \
  }                                                                                              \
  extern "C" __global__ void __launch_bounds__(512, 1) gpucomm_reducescatter_ll_##NAME(       \
      const char* input, char* output, long long bytes, long long inputStride, PeerBases peers, \
      GatherLayout layout, GatherControl* control, int rank, int world) {                        \
    reducescatter_ll<T>(input, output, bytes, inputStride, peers, layout, control, rank, world); \
  }                                                                                              \
  extern "C" __global__ void __launch_bounds__(512) gpucomm_ce_sum_##NAME(                      \
      const char* ownShard, char* output, long long bytes, const char* slots,                    \
      long long slotStride, int rank, int world) {                                               \
    ce_sum<T>(ownShard, output, bytes, slots, slotStride, rank, world);                          \
  }

GPUCOMM_DTYPE_KERNELS(bf16, __nv_bfloat16)
GPUCOMM_DTYPE_KERNELS(fp16, __half)
GPUCOMM_DTYPE_KERNELS(fp32, float)
