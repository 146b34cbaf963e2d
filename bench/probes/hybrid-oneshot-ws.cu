// A two-GPU one-shot all-reduce whose bytes cross NVLink by both engines at once: the copy engine
// carries the first share of the buffer (in a few chunks), the SM stores of a warp-specialized
// one-shot carry the rest, and the reducing warps reduce whichever has landed. A prototype of
// the protocol before it goes into the runtime, timed against its own share-0 form (the runtime's
// `oneshot_ws`: same grid, teams, chunking, flags and receive-area parity).
//
// Per call on each GPU:
//   copy stream:  wait until the peer has freed its copy-engine receive area (a word in local
//                 memory that the peer's kernel sets), clear that word, then per copy chunk: a
//                 peer copy into the peer's area and a stream write of 1 into the peer's ready
//                 word of that chunk (the write is fenced after the copy);
//   main stream:  the kernel. Pushing warps store their chunks of the rest into the peer's
//                 receive area of this call's parity, each chunk followed by a system-scope
//                 release of the block's flag (epoch << 16 | chunk + 1). Reducing warps wait for
//                 the peer's flag of each chunk and reduce it; between chunks they reduce any
//                 copy chunk whose ready word is set, and at the end wait for the rest. The last
//                 block to finish clears the ready words and frees the area for the peer; then
//                 the main stream joins the copy stream.
// The copy-engine receive area is one fixed buffer and every stream-written word holds a constant
// (0 or 1), so a CUDA graph replays the call unchanged.
//
//   nvcc -O3 -arch=sm_90 -cudart static -o hybrid-oneshot-ws bench/probes/hybrid-oneshot-ws.cu
//   ./hybrid-oneshot-ws [--mib 64] [--calls 10] [--samples 30] [--flags | --host | --host-words]
// --flags times only the SM one-shot (no copy engine) with four ways of raising the chunk flags.
// --host sends the copy share GPU -> pinned host memory -> peer (the PCIe links, each GPU's copy
// engines) instead of over NVLink; eager only (the hand-off is an event across the two GPUs).
// --host-words hands each staged chunk on through a word that the sender's copy stream writes into
// the receiver's memory and the receiver's inbound stream waits for (cuStreamWriteValue32 /
// cuStreamWaitValue32), as two processes must, instead of an event.
#include "probe.h"
#include "stream-memops.h"



constexpr int MAX_BLOCKS = 160;
constexpr int MAX_COPY_CHUNKS = 16;
constexpr int THREADS = 512;
constexpr int TEAM = THREADS / 2;  // pushing warps, then reducing warps
constexpr int ROUNDS = 4;          // vectors per thread per group (the runtime's TP2 value)
constexpr int GROUPS = 2;          // groups of loads in flight per pushing thread
constexpr int PUSH_WARPS = TEAM / 32;

// How the pushing warps tell the peer that a chunk has landed:
//   TEAM_RELEASE  the team's barrier, then one thread's system-scope release of the block's flag
//                 (the runtime's way: the team waits at every chunk for that thread's release);
//   WARP_FLAGS    every warp releases its own flag after its own stores (no barrier among the
//                 pushing warps); the reducing warps wait for all of them;
//   FLAG_WARP     every warp signals a counter in shared memory with a CTA-scope release and goes
//                 on; one extra warp waits for the count and does the system-scope release;
//   FLAG_WARP_BAR the same hand-off through hardware barriers: the pushing warps arrive (without
//                 waiting) at chunk k's barrier, the extra warp syncs on it and releases; a second
//                 pair of barriers keeps the pushing warps at most two chunks ahead of it.
enum FlagMode { TEAM_RELEASE = 0, WARP_FLAGS = 1, FLAG_WARP = 2, FLAG_WARP_BAR = 3 };

struct Words {
  uint32_t ready[MAX_COPY_CHUNKS];  // written by the peer's copy stream
  uint32_t free;                    // written by the peer's kernel
  uint32_t done;                    // blocks of this GPU's kernel that finished reducing
  uint32_t flags[MAX_BLOCKS][PUSH_WARPS];  // the peer's chunk flags (per warp for WARP_FLAGS)
  uint32_t epochs[MAX_BLOCKS];      // this GPU's call counter, one per block
  uint32_t ownFlags[MAX_BLOCKS];    // this GPU's pushing warps' flags for its own reducing warps
  uint32_t staged[MAX_COPY_CHUNKS]; // --host-words: written by the peer's copy stream
};

__device__ __forceinline__ void team_sync(int barrier) {
  asm volatile("bar.sync %0, %1;" ::"r"(barrier), "r"(TEAM) : "memory");
}

// Barriers shared by the pushing warps and the flag warp (FLAG_WARP_BAR): 3 and 4 carry "chunk k
// pushed" (k even, odd), 5 and 6 "chunk k's flag raised".
__device__ __forceinline__ void bar_sync_with_flag_warp(int barrier) {
  asm volatile("bar.sync %0, %1;" ::"r"(barrier), "r"(TEAM + 32) : "memory");
}

__device__ __forceinline__ void bar_arrive_with_flag_warp(int barrier) {
  asm volatile("bar.arrive %0, %1;" ::"r"(barrier), "r"(TEAM + 32) : "memory");
}

// fp32 sum of rank 0's and rank 1's bf16 vectors, in that order on both GPUs.
__device__ __forceinline__ uint4 add_in_rank_order(uint4 mine, uint4 theirs, int rank) {
  return rank == 0 ? sum_bf16(mine, theirs) : sum_bf16(theirs, mine);
}

struct Call {
  const uint4* input;
  uint4* output;
  long long copyVectors;       // [0, copyVectors) goes by the copy engine
  long long copyChunkVectors;  // per copy chunk
  int copyChunks;
  long long smVectors;  // [copyVectors, copyVectors + smVectors) by SM stores
  int maxChunks;
  int rank;
  uint4* received;      // this GPU's SM receive areas, [2 parity][smVectors at most]
  uint4* peerReceived;  // the peer's
  long long parityStride;
  const uint4* copyReceived;  // this GPU's copy-engine receive area
  Words* mine;
  Words* peer;
  bool ownFlag;  // as the runtime: the reducing warps also wait for this GPU's pushing warps
};

// The SM part's chunk plan, the same on both GPUs and for both teams: groups of ROUNDS vectors
// per thread, at most maxChunks chunks of whole groups.
struct Plan {
  long long first, stride, groups, groupsPerChunk;
  int chunks;
};

__device__ __forceinline__ Plan plan(const Call& c, int thread) {
  Plan p;
  p.first = static_cast<long long>(blockIdx.x) * TEAM + thread;
  p.stride = static_cast<long long>(gridDim.x) * TEAM;
  const long long perThread = (c.smVectors + p.stride - 1) / p.stride;
  p.groups = (perThread + ROUNDS - 1) / ROUNDS;
  p.groupsPerChunk = (p.groups + c.maxChunks - 1) / c.maxChunks;
  if (p.groupsPerChunk < 1) p.groupsPerChunk = 1;
  p.chunks = static_cast<int>((p.groups + p.groupsPerChunk - 1) / p.groupsPerChunk);
  return p;
}

__device__ __forceinline__ long long chunk_end(const Plan& p, int chunk) {
  const long long end = (chunk + 1) * p.groupsPerChunk;
  return end < p.groups ? end : p.groups;
}

__device__ __forceinline__ void red_release_cta_shared(uint32_t* counter) {
  asm volatile("red.release.cta.shared::cta.add.u32 [%0], 1;" ::"r"(
                   static_cast<uint32_t>(__cvta_generic_to_shared(counter)))
               : "memory");
}

__device__ __forceinline__ uint32_t ld_acquire_cta_shared(const uint32_t* counter) {
  uint32_t v;
  asm volatile("ld.acquire.cta.shared::cta.u32 %0, [%1];"
               : "=r"(v)
               : "r"(static_cast<uint32_t>(__cvta_generic_to_shared(counter)))
               : "memory");
  return v;
}

__device__ void push(const Call& c, const Plan& p, long long parity, uint32_t epoch, int thread,
                     FlagMode mode, uint32_t* pushed) {
  const uint4* in = c.input + c.copyVectors;
  uint4* dst = c.peerReceived + parity * c.parityStride;
  for (int chunk = 0; chunk < p.chunks; ++chunk) {
    if (mode == FLAG_WARP_BAR && chunk >= 2) bar_sync_with_flag_warp(5 + (chunk & 1));
    const long long end = chunk_end(p, chunk);
    for (long long g = chunk * p.groupsPerChunk; g < end; g += GROUPS) {
      uint4 x[GROUPS][ROUNDS];
#pragma unroll
      for (int k = 0; k < GROUPS; ++k) {
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
          const long long v = p.first + (g + k) * p.stride * ROUNDS + r * p.stride;
          if (g + k < end && v < c.smVectors) x[k][r] = in[v];
        }
      }
#pragma unroll
      for (int k = 0; k < GROUPS; ++k) {
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
          const long long v = p.first + (g + k) * p.stride * ROUNDS + r * p.stride;
          if (g + k < end && v < c.smVectors) dst[v] = x[k][r];
        }
      }
    }
    const uint32_t value = (epoch << 16) + chunk + 1;
    if (mode == TEAM_RELEASE) {
      team_sync(1);
      if (thread == 0) st_release_sys(&c.peer->flags[blockIdx.x][0], value);
      if (c.ownFlag && thread == 1) st_release_sys(&c.mine->ownFlags[blockIdx.x], value);
    } else if (mode == FLAG_WARP_BAR) {
      bar_arrive_with_flag_warp(3 + (chunk & 1));
    } else {
      __syncwarp();
      if (thread % 32 == 0) {
        if (mode == WARP_FLAGS) {
          st_release_sys(&c.peer->flags[blockIdx.x][thread / 32], value);
        } else {
          red_release_cta_shared(pushed);
        }
      }
    }
  }
}

// FLAG_WARP: lane 0 of the extra warp raises chunk k's flag once every pushing warp has counted
// chunk k in shared memory.
__device__ void raise_flags_for_team(const Call& c, const Plan& p, uint32_t epoch, int lane,
                                     const uint32_t* pushed, FlagMode mode) {
  if (mode == FLAG_WARP_BAR) {
    for (int chunk = 0; chunk < p.chunks; ++chunk) {
      bar_sync_with_flag_warp(3 + (chunk & 1));
      if (lane == 0) st_release_sys(&c.peer->flags[blockIdx.x][0], (epoch << 16) + chunk + 1);
      __syncwarp();
      if (chunk + 2 < p.chunks) bar_arrive_with_flag_warp(5 + (chunk & 1));
    }
    return;
  }
  if (lane != 0) return;
  for (int chunk = 0; chunk < p.chunks; ++chunk) {
    const uint32_t target = static_cast<uint32_t>(PUSH_WARPS * (chunk + 1));
    while (ld_acquire_cta_shared(pushed) < target) {
    }
    st_release_sys(&c.peer->flags[blockIdx.x][0], (epoch << 16) + chunk + 1);
  }
}

__device__ __forceinline__ void reduce_sm_chunk(const Call& c, const Plan& p, long long parity,
                                                int chunk) {
  const uint4* in = c.input + c.copyVectors;
  uint4* out = c.output + c.copyVectors;
  const uint4* theirs = c.received + parity * c.parityStride;
  for (long long g = chunk * p.groupsPerChunk; g < chunk_end(p, chunk); ++g) {
    uint4 a[ROUNDS], b[ROUNDS];
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
      const long long v = p.first + g * p.stride * ROUNDS + r * p.stride;
      if (v < c.smVectors) a[r] = in[v], b[r] = __ldcg(theirs + v);
    }
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
      const long long v = p.first + g * p.stride * ROUNDS + r * p.stride;
      if (v < c.smVectors) out[v] = add_in_rank_order(a[r], b[r], c.rank);
    }
  }
}

__device__ __forceinline__ void reduce_copy_chunk(const Call& c, int chunk, int thread) {
  const long long begin = chunk * c.copyChunkVectors;
  const long long end =
      c.copyVectors < begin + c.copyChunkVectors ? c.copyVectors : begin + c.copyChunkVectors;
  const long long stride = static_cast<long long>(gridDim.x) * TEAM;
  long long v = begin + static_cast<long long>(blockIdx.x) * TEAM + thread;
  for (; v + (ROUNDS - 1) * stride < end; v += ROUNDS * stride) {
    uint4 a[ROUNDS], b[ROUNDS];
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) a[r] = c.input[v + r * stride], b[r] = __ldcg(c.copyReceived + v + r * stride);
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) c.output[v + r * stride] = add_in_rank_order(a[r], b[r], c.rank);
  }
  for (; v < end; v += stride) c.output[v] = add_in_rank_order(c.input[v], __ldcg(c.copyReceived + v), c.rank);
}

// Whether copy chunk `chunk` has landed here; `wait`: spin until it has.
__device__ __forceinline__ bool copy_chunk_landed(const Call& c, int chunk, bool wait, int thread) {
  __shared__ int landed;
  if (thread == 0) {
    uint32_t word = ld_acquire_sys(&c.mine->ready[chunk]);
    while (wait && word == 0) word = ld_acquire_sys(&c.mine->ready[chunk]);
    landed = word != 0;
  }
  team_sync(2);
  const bool result = landed;
  team_sync(2);
  return result;
}

__device__ void reduce(const Call& c, const Plan& p, long long parity, uint32_t epoch, int thread,
                       FlagMode mode) {
  int nextCopy = 0;
  const int pollers = mode == WARP_FLAGS ? PUSH_WARPS : 1;
  for (int chunk = 0; chunk < p.chunks; ++chunk) {
    if (thread < pollers) {
      const uint32_t value = (epoch << 16) + chunk + 1;
      while (static_cast<int>(ld_acquire_sys(&c.mine->flags[blockIdx.x][thread]) - value) < 0) {
      }
    }
    if (c.ownFlag && thread == 1) {
      const uint32_t value = (epoch << 16) + chunk + 1;
      while (static_cast<int>(ld_acquire_sys(&c.mine->ownFlags[blockIdx.x]) - value) < 0) {
      }
    }
    team_sync(2);
    reduce_sm_chunk(c, p, parity, chunk);
    while (nextCopy < c.copyChunks && copy_chunk_landed(c, nextCopy, false, thread)) {
      reduce_copy_chunk(c, nextCopy++, thread);
    }
  }
  while (nextCopy < c.copyChunks) {
    copy_chunk_landed(c, nextCopy, true, thread);
    reduce_copy_chunk(c, nextCopy++, thread);
  }
  if (c.copyChunks == 0) return;
  // The last block to finish frees this GPU's copy-engine area for the peer's next call.
  team_sync(2);
  if (thread == 0) {
    __threadfence();
    if (atomicAdd(&c.mine->done, 1) == gridDim.x - 1) {
      c.mine->done = 0;
      for (int k = 0; k < c.copyChunks; ++k) c.mine->ready[k] = 0;
      __threadfence_system();
      st_release_sys(&c.peer->free, 1);
    }
  }
}

// Threads [0, TEAM) push, [TEAM, 2 TEAM) reduce, and for FLAG_WARP one more warp raises flags.
__global__ void __launch_bounds__(THREADS + 32) hybrid_oneshot(Call c, FlagMode mode, bool pdl) {
  __shared__ uint32_t pushed;
  if (pdl) {
    // As the runtime: launched with programmatic stream serialization, so this wait comes first.
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  }
  const uint32_t epoch = c.mine->epochs[blockIdx.x] + 1;
  if (threadIdx.x == 0) pushed = 0;
  __syncthreads();  // every thread has read the epoch before thread 0 stores the next one
  const int team = threadIdx.x / TEAM;
  const int thread = threadIdx.x - team * TEAM;
  const Plan p = plan(c, team == 2 ? 0 : thread);
  const long long parity = epoch & 1;
  if (team == 0) {
    push(c, p, parity, epoch, thread, mode, &pushed);
  } else if (team == 1) {
    reduce(c, p, parity, epoch, thread, mode);
  } else {
    raise_flags_for_team(c, p, epoch, thread, &pushed, mode);
  }
  if (threadIdx.x == 0) c.mine->epochs[blockIdx.x] = epoch;
}

struct Gpu {
  int device;
  cudaStream_t main, copy;
  cudaEvent_t fork, join;
  cudaStream_t in;  // --host: the peer's share onward from pinned host memory into this GPU
  cudaEvent_t inJoin, outDone[MAX_COPY_CHUNKS];
  char* staging;  // --host: pinned host memory this GPU's copy engine fills for the peer
  char *input, *output, *received, *copyReceived;
  Words* words;
  char *peerReceived, *peerCopyReceived;
  Words* peerWords;
  int blocks;
};

struct Shape {
  double copyShare;  // of the bytes, rounded down to whole 16-byte vectors
  int copyChunks;
  int maxChunks;
  FlagMode flags;
  bool ownFlag = false;
  bool pdl = false;
};

static Call make_call(Gpu& g, long long bytes, const Shape& s) {
  const long long vectors = bytes / 16;
  Call c{};
  c.input = reinterpret_cast<const uint4*>(g.input);
  c.output = reinterpret_cast<uint4*>(g.output);
  c.copyChunks = s.copyShare > 0 ? s.copyChunks : 0;
  c.copyVectors = c.copyChunks > 0 ? static_cast<long long>(vectors * s.copyShare) : 0;
  c.copyChunkVectors = c.copyChunks > 0 ? (c.copyVectors + c.copyChunks - 1) / c.copyChunks : 0;
  c.smVectors = vectors - c.copyVectors;
  c.maxChunks = s.maxChunks;
  c.rank = g.device;
  c.received = reinterpret_cast<uint4*>(g.received);
  c.peerReceived = reinterpret_cast<uint4*>(g.peerReceived);
  c.parityStride = vectors;
  c.copyReceived = reinterpret_cast<const uint4*>(g.copyReceived);
  c.mine = g.words;
  c.peer = g.peerWords;
  c.ownFlag = s.ownFlag;
  return c;
}

static void launch(Gpu& g, const Call& c, const Shape& s) {
  cudaLaunchConfig_t config{};
  config.gridDim = g.blocks;
  config.blockDim = THREADS + (s.flags == FLAG_WARP || s.flags == FLAG_WARP_BAR ? 32 : 0);
  config.stream = g.main;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = s.pdl ? 1 : 0;
  CHECK(cudaLaunchKernelEx(&config, hybrid_oneshot, c, s.flags, s.pdl));
}

static void enqueue_call(Gpu& g, long long bytes, const Shape& s) {
  const Call c = make_call(g, bytes, s);
  if (c.copyChunks > 0) {
    CHECK(cudaEventRecord(g.fork, g.main));
    CHECK(cudaStreamWaitEvent(g.copy, g.fork, 0));
    CHECK_CU(waitValue32(g.copy, reinterpret_cast<CUdeviceptr>(&g.words->free), 1,
                         CU_STREAM_WAIT_VALUE_EQ));
    CHECK_CU(writeValue32(g.copy, reinterpret_cast<CUdeviceptr>(&g.words->free), 0, 0));
    for (int k = 0; k < c.copyChunks; ++k) {
      const long long begin = k * c.copyChunkVectors * 16;
      const long long length = std::min(c.copyVectors * 16, begin + c.copyChunkVectors * 16) - begin;
      CHECK(cudaMemcpyAsync(g.peerCopyReceived + begin, g.input + begin, length,
                            cudaMemcpyDeviceToDevice, g.copy));
      CHECK_CU(writeValue32(g.copy, reinterpret_cast<CUdeviceptr>(&g.peerWords->ready[k]), 1, 0));
    }
    CHECK(cudaEventRecord(g.join, g.copy));
  }
  launch(g, c, s);
  if (c.copyChunks > 0) CHECK(cudaStreamWaitEvent(g.main, g.join, 0));
}

// --host: one call on both GPUs, the copy share going GPU -> pinned host memory -> peer on the
// two GPUs' copy engines (the peer's inbound copy of chunk k waits for the outbound one; events
// across devices, so eager only). The same words as the NVLink copy share: the sender waits for
// its free word, the receiver's inbound stream sets each ready word after its copy, and the
// receiver's kernel frees the sender once it has reduced them.
static bool hostWords = false;  // --host-words: the hand-off through words, as across processes

static void enqueue_host_call(std::vector<Gpu>& gpus, long long bytes, const Shape& s) {
  Call calls[2];
  for (int g = 0; g < 2; ++g) {
    Gpu& self = gpus[g];
    calls[g] = make_call(self, bytes, s);
    const Call& c = calls[g];
    CHECK(cudaSetDevice(self.device));
    CHECK(cudaEventRecord(self.fork, self.main));
    if (c.copyChunks == 0) continue;
    CHECK(cudaStreamWaitEvent(self.copy, self.fork, 0));
    CHECK_CU(waitValue32(self.copy, reinterpret_cast<CUdeviceptr>(&self.words->free), 1,
                         CU_STREAM_WAIT_VALUE_EQ));
    CHECK_CU(writeValue32(self.copy, reinterpret_cast<CUdeviceptr>(&self.words->free), 0, 0));
    for (int k = 0; k < c.copyChunks; ++k) {
      const long long begin = k * c.copyChunkVectors * 16;
      const long long length = std::min(c.copyVectors * 16, begin + c.copyChunkVectors * 16) - begin;
      CHECK(cudaMemcpyAsync(self.staging + begin, self.input + begin, length,
                            cudaMemcpyDeviceToHost, self.copy));
      if (hostWords) {
        CHECK_CU(writeValue32(self.copy, reinterpret_cast<CUdeviceptr>(&self.peerWords->staged[k]),
                              1, 0));
      } else {
        CHECK(cudaEventRecord(self.outDone[k], self.copy));
      }
    }
    CHECK(cudaEventRecord(self.join, self.copy));
  }
  for (int g = 0; g < 2; ++g) {
    Gpu& self = gpus[g];
    const Gpu& sender = gpus[1 - g];
    const Call& c = calls[g];
    CHECK(cudaSetDevice(self.device));
    if (c.copyChunks > 0) {
      CHECK(cudaStreamWaitEvent(self.in, self.fork, 0));
      for (int k = 0; k < c.copyChunks; ++k) {
        const long long begin = k * c.copyChunkVectors * 16;
        const long long length = std::min(c.copyVectors * 16, begin + c.copyChunkVectors * 16) - begin;
        if (hostWords) {
          CHECK_CU(waitValue32(self.in, reinterpret_cast<CUdeviceptr>(&self.words->staged[k]), 1,
                               CU_STREAM_WAIT_VALUE_EQ));
          CHECK_CU(writeValue32(self.in, reinterpret_cast<CUdeviceptr>(&self.words->staged[k]), 0,
                                0));
        } else {
          CHECK(cudaStreamWaitEvent(self.in, sender.outDone[k], 0));
        }
        CHECK(cudaMemcpyAsync(self.copyReceived + begin, sender.staging + begin, length,
                              cudaMemcpyHostToDevice, self.in));
        CHECK_CU(writeValue32(self.in, reinterpret_cast<CUdeviceptr>(&self.words->ready[k]), 1, 0));
      }
      CHECK(cudaEventRecord(self.inJoin, self.in));
    }
    launch(self, c, s);
    if (c.copyChunks > 0) {
      CHECK(cudaStreamWaitEvent(self.main, self.join, 0));
      CHECK(cudaStreamWaitEvent(self.main, self.inJoin, 0));
    }
  }
}

// --host: median microseconds per call, eager, the slower GPU of each sample.
static double measure_host(std::vector<Gpu>& gpus, const Shape& s, const ProbeOptions& o) {
  const double ms =
      median_slowest_ms_together(2, {gpus[0].main, gpus[1].main}, o.samples, [&]() {
        for (int k = 0; k < o.calls; ++k) enqueue_host_call(gpus, o.bytes, s);
      });
  return ms * 1000.0 / o.calls;
}

// Median microseconds per call (the slower GPU of each sample), eager or replaying a graph of
// `calls` calls.
static double measure(std::vector<Gpu>& gpus, const Shape& s, bool graph, const ProbeOptions& o) {
  return median_us_per_call({gpus[0].main, gpus[1].main}, graph, o.calls, o.samples,
                            [&](int g) { enqueue_call(gpus[g], o.bytes, s); });
}

int main(int argc, char** argv) {
  // --flags: time the pushing warps' flag modes (no copy engine) instead of the copy-engine shares.
  // --host: the copy share goes through pinned host memory (PCIe) instead of over NVLink.
  bool flagSweep = false, viaHost = false;
  if (argc > 1 && std::string(argv[argc - 1]) == "--flags") flagSweep = true, --argc;
  if (argc > 1 && std::string(argv[argc - 1]) == "--host-words") viaHost = hostWords = true, --argc;
  if (argc > 1 && std::string(argv[argc - 1]) == "--host") viaHost = true, --argc;
  const ProbeOptions o = parse_probe_options("hybrid-oneshot-ws", argc, argv);
  load_stream_memory_operations();
  std::vector<Gpu> gpus(2);
  for (int g = 0; g < 2; ++g) {
    Gpu& gpu = gpus[g];
    gpu.device = g;
    CHECK(cudaSetDevice(g));
    CHECK(cudaDeviceEnablePeerAccess(1 - g, 0));
    CHECK(cudaStreamCreateWithFlags(&gpu.main, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&gpu.copy, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&gpu.fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&gpu.join, cudaEventDisableTiming));
    CHECK(cudaMalloc(&gpu.input, o.bytes));
    CHECK(cudaMalloc(&gpu.output, o.bytes));
    CHECK(cudaMalloc(&gpu.received, 2 * o.bytes));
    CHECK(cudaMalloc(&gpu.copyReceived, o.bytes));
    CHECK(cudaStreamCreateWithFlags(&gpu.in, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&gpu.inJoin, cudaEventDisableTiming));
    for (auto& e : gpu.outDone) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    CHECK(cudaHostAlloc(&gpu.staging, viaHost ? o.bytes : 16, cudaHostAllocPortable));
    CHECK(cudaMalloc(&gpu.words, sizeof(Words)));
    CHECK(cudaMemset(gpu.words, 0, sizeof(Words)));
    const uint32_t one = 1;
    CHECK(cudaMemcpy(&gpu.words->free, &one, 4, cudaMemcpyHostToDevice));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, g));
    gpu.blocks = std::min(prop.multiProcessorCount, MAX_BLOCKS);
    const std::vector<uint16_t> random = random_bf16(o.bytes, g + 1);
    CHECK(cudaMemcpy(gpu.input, random.data(), o.bytes, cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());
  }
  for (int g = 0; g < 2; ++g) {
    gpus[g].peerReceived = gpus[1 - g].received;
    gpus[g].peerCopyReceived = gpus[1 - g].copyReceived;
    gpus[g].peerWords = gpus[1 - g].words;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s x 2: copy engine + SM stores one-shot of %lld MiB bf16, %d calls per sample, "
         "median of %d\n",
         prop.name, o.bytes >> 20, o.calls, o.samples);
  std::vector<Shape> shapes;
  if (viaHost) {
    for (int maxChunks : {16, 24}) shapes.push_back({0, 0, maxChunks, TEAM_RELEASE});
    for (double share : {0.01, 0.03, 0.05, 0.06, 0.07, 0.08, 0.10}) {
      for (int copyChunks : {2, 4, 8}) {
        for (int maxChunks : {16, 24}) shapes.push_back({share, copyChunks, maxChunks, TEAM_RELEASE});
      }
    }
  } else if (flagSweep) {
    for (FlagMode mode : {TEAM_RELEASE, FLAG_WARP_BAR}) {
      for (int maxChunks : {8, 12, 16, 24, 32, 64}) shapes.push_back({0, 0, maxChunks, mode});
    }
    for (FlagMode mode : {WARP_FLAGS, FLAG_WARP}) shapes.push_back({0, 0, 16, mode});
    for (int maxChunks : {16, 24}) {
      shapes.push_back({0, 0, maxChunks, TEAM_RELEASE, true, false});
      shapes.push_back({0, 0, maxChunks, TEAM_RELEASE, false, true});
      shapes.push_back({0, 0, maxChunks, TEAM_RELEASE, true, true});
      shapes.push_back({0, 0, maxChunks, FLAG_WARP_BAR, false, true});
    }
  } else {
    for (int maxChunks : {8, 16, 32}) shapes.push_back({0, 0, maxChunks, TEAM_RELEASE});
    for (double share : {0.1, 0.2, 0.3, 0.4, 0.5, 0.6}) {
      for (int copyChunks : {1, 2, 4, 8}) shapes.push_back({share, copyChunks, 16, TEAM_RELEASE});
    }
  }
  for (const Shape& s : shapes) {
    for (bool graph : {true, false}) {
      if (viaHost && graph) continue;
      for (int g = 0; g < 2; ++g) {
        CHECK(cudaSetDevice(g));
        CHECK(cudaMemset(gpus[g].output, 0, o.bytes));
        CHECK(cudaDeviceSynchronize());
      }
      const double us = viaHost ? measure_host(gpus, s, o) : measure(gpus, s, graph, o);
      const bool ok = outputs_match(gpus, o.bytes);
      static const char* const flagNames[] = {"team-release", "warp-flags", "flag-warp",
                                              "flag-warp-bar"};
      printf("%scopy-share=%.2f copy-chunks=%d sm-chunks=%-3d flags=%-13s own-flag=%d pdl=%d %-6s "
             "%8.1f us  %6.1f GB/s busbw  %s\n",
             viaHost ? "host " : "", s.copyShare, s.copyChunks, s.maxChunks, flagNames[s.flags],
             s.ownFlag, s.pdl,
             graph ? "graph" : "eager", us,
             o.bytes / (us * 1e-6) / 1e9, ok ? "checked" : "MISMATCH");
      fflush(stdout);
      if (!ok) return 3;
    }
  }
  return 0;
}
