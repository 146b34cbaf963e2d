// A one-shot all-reduce of two GPUs whose transfers run on the copy engines: a prototype of the
// protocol before it goes into the runtime, and its time against chunk counts, eager and in a
// CUDA graph.
//
// Per call on each GPU:
//   copy stream:  wait until the peer has freed its receive area (a word in local memory that
//                 the peer's reduce kernel sets), clear that word, then per chunk: a peer copy of
//                 the chunk into the peer's receive area and a stream write of 1 into the peer's
//                 ready word of that chunk (the write is fenced after the copy);
//   main stream:  a reduce kernel whose blocks wait for each chunk's ready word (local memory)
//                 and reduce it (fp32 sums in rank order, so both GPUs get the same bits); the
//                 last block to finish clears the ready words and frees this GPU's receive area
//                 for the peer; then the main stream joins the copy stream.
// Every word written by a stream write holds a constant (0 or 1), so a graph replays the call
// unchanged.
//
//   nvcc -O3 -arch=sm_90 -cudart static -o copy-engine-oneshot bench/probes/copy-engine-oneshot.cu
//   ./copy-engine-oneshot [--mib 64] [--calls 10] [--samples 30]
#include <string>

#include "probe.h"
#include "stream-memops.h"



constexpr int MAX_CHUNKS = 64;

struct Words {
  uint32_t ready[MAX_CHUNKS];  // written by the peer's copy stream
  uint32_t free;               // written by the peer's reduce kernel
  uint32_t done;               // blocks of this GPU's reduce kernel that finished
};

__device__ __forceinline__ uint4 add_bf16(uint4 first, uint4 second) {
  const __nv_bfloat16* a = reinterpret_cast<const __nv_bfloat16*>(&first);
  const __nv_bfloat16* b = reinterpret_cast<const __nv_bfloat16*>(&second);
  uint4 out;
  __nv_bfloat16* o = reinterpret_cast<__nv_bfloat16*>(&out);
#pragma unroll
  for (int i = 0; i < 8; ++i) o[i] = __float2bfloat16(__bfloat162float(a[i]) + __bfloat162float(b[i]));
  return out;
}

__global__ void __launch_bounds__(512) reduce_chunks(const uint4* input, const uint4* received,
                                                     uint4* output, long long vectors,
                                                     long long chunkVectors, int chunks, int rank,
                                                     Words* mine, Words* peers) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (int k = 0; k < chunks; ++k) {
    if (threadIdx.x == 0) {
      while (ld_acquire_sys(&mine->ready[k]) == 0) {
      }
    }
    __syncthreads();
    const long long begin = k * chunkVectors;
    const long long end = vectors < begin + chunkVectors ? vectors : begin + chunkVectors;
    for (long long v = begin + blockIdx.x * blockDim.x + threadIdx.x; v < end; v += 2 * stride) {
      const long long w = v + stride;
      const uint4 a0 = __ldcs(input + v), b0 = __ldcs(received + v);
      uint4 a1, b1;
      if (w < end) a1 = __ldcs(input + w), b1 = __ldcs(received + w);
      output[v] = rank == 0 ? add_bf16(a0, b0) : add_bf16(b0, a0);
      if (w < end) output[w] = rank == 0 ? add_bf16(a1, b1) : add_bf16(b1, a1);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&mine->done, 1) == gridDim.x - 1) {
      mine->done = 0;
      for (int k = 0; k < chunks; ++k) mine->ready[k] = 0;
      __threadfence_system();
      st_release_sys(&peers->free, 1);
    }
  }
}

struct Gpu {
  int device;
  cudaStream_t main, copy[4];
  cudaEvent_t fork, join[4];
  char *input, *output, *received;  // received: this GPU's receive area
  Words* words;                     // this GPU's words
  char* peerReceived;               // the peer's receive area (peer mapping)
  Words* peerWords;
  int blocks;
};

// Chunk k goes on copy stream k % streams; every copy stream first waits for the free word, and
// the first clears it once all have seen it (the others wait on its event).
static void enqueue_call(Gpu& g, long long bytes, int chunks, int streams) {
  const long long vectors = bytes / 16;
  const long long chunkVectors = (vectors + chunks - 1) / chunks;
  CHECK(cudaEventRecord(g.fork, g.main));
  for (int s = 0; s < streams; ++s) CHECK(cudaStreamWaitEvent(g.copy[s], g.fork, 0));
  CHECK_CU(waitValue32(g.copy[0], reinterpret_cast<CUdeviceptr>(&g.words->free), 1,
                       CU_STREAM_WAIT_VALUE_EQ));
  CHECK_CU(writeValue32(g.copy[0], reinterpret_cast<CUdeviceptr>(&g.words->free), 0, 0));
  CHECK(cudaEventRecord(g.join[0], g.copy[0]));
  for (int s = 1; s < streams; ++s) CHECK(cudaStreamWaitEvent(g.copy[s], g.join[0], 0));
  for (int k = 0; k < chunks; ++k) {
    const long long begin = k * chunkVectors * 16;
    const long long length = std::min(bytes, begin + chunkVectors * 16) - begin;
    cudaStream_t copy = g.copy[k % streams];
    CHECK(cudaMemcpyAsync(g.peerReceived + begin, g.input + begin, length,
                          cudaMemcpyDeviceToDevice, copy));
    CHECK_CU(writeValue32(copy, reinterpret_cast<CUdeviceptr>(&g.peerWords->ready[k]), 1, 0));
  }
  for (int s = 0; s < streams; ++s) CHECK(cudaEventRecord(g.join[s], g.copy[s]));
  reduce_chunks<<<g.blocks, 512, 0, g.main>>>(
      reinterpret_cast<const uint4*>(g.input), reinterpret_cast<const uint4*>(g.received),
      reinterpret_cast<uint4*>(g.output), vectors, chunkVectors, chunks, g.device, g.words,
      g.peerWords);
  for (int s = 0; s < streams; ++s) CHECK(cudaStreamWaitEvent(g.main, g.join[s], 0));
}

// Median microseconds per call (the slower GPU of each sample), eager or replaying a graph of
// `calls` calls.
static double measure(std::vector<Gpu>& gpus, int chunks, int streams, bool graph,
                      const ProbeOptions& o) {
  return median_us_per_call({gpus[0].main, gpus[1].main}, graph, o.calls, o.samples, [&](int g) {
    enqueue_call(gpus[g], o.bytes, chunks, streams);
  });
}

int main(int argc, char** argv) {
  const ProbeOptions o = parse_probe_options("copy-engine-oneshot", argc, argv);
  load_stream_memory_operations();
  std::vector<Gpu> gpus(2);
  for (int g = 0; g < 2; ++g) {
    Gpu& gpu = gpus[g];
    gpu.device = g;
    CHECK(cudaSetDevice(g));
    CHECK(cudaDeviceEnablePeerAccess(1 - g, 0));
    CHECK(cudaStreamCreateWithFlags(&gpu.main, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&gpu.fork, cudaEventDisableTiming));
    for (int s = 0; s < 4; ++s) {
      CHECK(cudaStreamCreateWithFlags(&gpu.copy[s], cudaStreamNonBlocking));
      CHECK(cudaEventCreateWithFlags(&gpu.join[s], cudaEventDisableTiming));
    }
    CHECK(cudaMalloc(&gpu.input, o.bytes));
    CHECK(cudaMalloc(&gpu.output, o.bytes));
    CHECK(cudaMalloc(&gpu.received, o.bytes));
    CHECK(cudaMalloc(&gpu.words, sizeof(Words)));
    CHECK(cudaMemset(gpu.words, 0, sizeof(Words)));
    const uint32_t one = 1;
    CHECK(cudaMemcpy(&gpu.words->free, &one, 4, cudaMemcpyHostToDevice));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, g));
    gpu.blocks = prop.multiProcessorCount;
    const std::vector<uint16_t> random = random_bf16(o.bytes, g + 1);
    CHECK(cudaMemcpy(gpu.input, random.data(), o.bytes, cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());
  }
  for (int g = 0; g < 2; ++g) {
    gpus[g].peerReceived = gpus[1 - g].received;
    gpus[g].peerWords = gpus[1 - g].words;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s x 2: copy-engine one-shot of %lld MiB bf16, %d calls per sample, median of %d\n",
         prop.name, o.bytes >> 20, o.calls, o.samples);
  for (int streams : {1, 2, 4}) {
  for (int chunks : {1, 2, 4, 8, 16, 32}) {
    if (chunks < streams) continue;
    for (bool graph : {false, true}) {
      for (int g = 0; g < 2; ++g) {
        CHECK(cudaSetDevice(g));
        CHECK(cudaMemset(gpus[g].output, 0, o.bytes));
        CHECK(cudaDeviceSynchronize());
      }
      const double us = measure(gpus, chunks, streams, graph, o);
      const bool ok = outputs_match(gpus, o.bytes);
      printf("streams=%d chunks=%-3d %-6s %8.1f us  %6.1f GB/s busbw  %s\n", streams, chunks,
             graph ? "graph" : "eager", us, o.bytes / (us * 1e-6) / 1e9,
             ok ? "checked" : "MISMATCH");
      fflush(stdout);
      if (!ok) return 3;
    }
  }
  }
  return 0;
}
