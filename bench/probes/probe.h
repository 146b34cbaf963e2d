// What the CUDA probes in this folder share: error checks, starting every GPU's stream at the same
// moment, timing samples with CUDA events, and the bf16 reference check of two-GPU all-reduces.
// Each probe is one translation unit that includes this header; GPU g is CUDA device g.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    cudaError_t err_ = (call);                                                                 \
    if (err_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

__global__ void probe_wait_for_release(volatile int* flag) {
  while (*flag == 0) {
  }
}

// A word in host memory that every GPU's stream spins on until the host sets it, so that work
// enqueued on several GPUs one after another starts on all of them at once.
class ReleaseFlag {
 public:
  ReleaseFlag() {
    CHECK(cudaHostAlloc(const_cast<int**>(&host_), sizeof(int),
                        cudaHostAllocMapped | cudaHostAllocPortable));
    CHECK(cudaHostGetDevicePointer(&device_, const_cast<int*>(host_), 0));
    *host_ = 0;
  }
  ~ReleaseFlag() { cudaFreeHost(const_cast<int*>(host_)); }
  ReleaseFlag(const ReleaseFlag&) = delete;
  ReleaseFlag& operator=(const ReleaseFlag&) = delete;

  // Holds back what is enqueued on `stream` (of the current device) after this call.
  void hold(cudaStream_t stream) { probe_wait_for_release<<<1, 1, 0, stream>>>(device_); }
  void release() { *host_ = 1; }
  void rearm() { *host_ = 0; }

 private:
  volatile int* host_;
  int* device_;
};

// median_slowest_ms for work that must be enqueued on all GPUs at once (one GPU's stream waits for
// events of another's): every GPU records its start, enqueue_all() enqueues everything, every GPU
// records its stop, and all start together.
template <typename EnqueueAll>
double median_slowest_ms_together(int gpus, const std::vector<cudaStream_t>& streams, int samples,
                                  EnqueueAll enqueue_all) {
  ReleaseFlag flag;
  std::vector<double> times;
  for (int sample = -3; sample < samples; ++sample) {
    flag.rearm();
    std::vector<cudaEvent_t> start(gpus), stop(gpus);
    for (int g = 0; g < gpus; ++g) {
      CHECK(cudaSetDevice(g));
      CHECK(cudaEventCreate(&start[g]));
      CHECK(cudaEventCreate(&stop[g]));
      flag.hold(streams[g]);
      CHECK(cudaEventRecord(start[g], streams[g]));
    }
    enqueue_all();
    for (int g = 0; g < gpus; ++g) {
      CHECK(cudaSetDevice(g));
      CHECK(cudaEventRecord(stop[g], streams[g]));
      CHECK(cudaGetLastError());
    }
    flag.release();
    float slowest = 0;
    for (int g = 0; g < gpus; ++g) {
      CHECK(cudaSetDevice(g));
      CHECK(cudaEventSynchronize(stop[g]));
      float ms;
      CHECK(cudaEventElapsedTime(&ms, start[g], stop[g]));
      slowest = std::max(slowest, ms);
      CHECK(cudaEventDestroy(start[g]));
      CHECK(cudaEventDestroy(stop[g]));
    }
    if (sample >= 0) times.push_back(slowest);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// The median over `samples` samples (after 3 warm-up ones) of the slowest GPU's milliseconds:
// in each sample every GPU g in [0, gpus) records a start event on streams[g], runs enqueue(g),
// records a stop event, and all start together.
template <typename Enqueue>
double median_slowest_ms(int gpus, const std::vector<cudaStream_t>& streams, int samples,
                         Enqueue enqueue) {
  return median_slowest_ms_together(gpus, streams, samples, [&]() {
    for (int g = 0; g < gpus; ++g) {
      CHECK(cudaSetDevice(g));
      enqueue(g);
    }
  });
}

// Median microseconds per call on GPUs 0..n-1 (the slowest GPU of each sample): `calls` calls of
// enqueue_call(g) on streams[g] back to back, eager or captured once per GPU into a CUDA graph and
// replayed.
template <typename EnqueueCall>
double median_us_per_call(const std::vector<cudaStream_t>& streams, bool graph, int calls,
                          int samples, EnqueueCall enqueue_call) {
  const int gpus = static_cast<int>(streams.size());
  std::vector<cudaGraphExec_t> execs(gpus);
  if (graph) {
    for (int g = 0; g < gpus; ++g) {
      CHECK(cudaSetDevice(g));
      cudaGraph_t captured;
      CHECK(cudaStreamBeginCapture(streams[g], cudaStreamCaptureModeThreadLocal));
      for (int k = 0; k < calls; ++k) enqueue_call(g);
      CHECK(cudaStreamEndCapture(streams[g], &captured));
      CHECK(cudaGraphInstantiate(&execs[g], captured, 0));
      CHECK(cudaGraphDestroy(captured));
    }
  }
  const double ms = median_slowest_ms(gpus, streams, samples, [&](int g) {
    if (graph) {
      CHECK(cudaGraphLaunch(execs[g], streams[g]));
    } else {
      for (int k = 0; k < calls; ++k) enqueue_call(g);
    }
  });
  if (graph) {
    for (int g = 0; g < gpus; ++g) {
      CHECK(cudaSetDevice(g));
      CHECK(cudaGraphExecDestroy(execs[g]));
    }
  }
  return ms * 1000.0 / calls;
}

// System-scope acquire load and release store of a 32-bit word (flags between GPUs).
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// first + second, eight bf16 lanes each, summed in fp32 and rounded to nearest.
__device__ __forceinline__ uint4 sum_bf16(uint4 first, uint4 second) {
  const __nv_bfloat162* a = reinterpret_cast<const __nv_bfloat162*>(&first);
  const __nv_bfloat162* b = reinterpret_cast<const __nv_bfloat162*>(&second);
  uint4 out;
  __nv_bfloat162* o = reinterpret_cast<__nv_bfloat162*>(&out);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 x = __bfloat1622float2(a[i]), y = __bfloat1622float2(b[i]);
    o[i] = __floats2bfloat162_rn(x.x + y.x, x.y + y.y);
  }
  return out;
}

// Random bf16 values in [-4, 4) (never the -0.0 pair a Lamport sentinel uses), `bytes` of them.
inline std::vector<uint16_t> random_bf16(long long bytes, uint64_t seed) {
  std::vector<uint16_t> values(bytes / 2);
  uint64_t x = 0x9E3779B97F4A7C15ull * seed;
  for (auto& v : values) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v = static_cast<uint16_t>(((x >> 20) & 0x8000) | ((125 + (x & 3)) << 7) | ((x >> 8) & 0x7f));
  }
  return values;
}

inline float bf16_to_float(uint16_t bits) {
  uint32_t word = static_cast<uint32_t>(bits) << 16;
  float f;
  memcpy(&f, &word, 4);
  return f;
}

// The bf16 nearest to f, as bits.
inline uint16_t to_bf16(float f) {
  const __nv_bfloat16 b = __float2bfloat16(f);
  uint16_t bits;
  memcpy(&bits, &b, 2);
  return bits;
}

// `bytes` of 16-bit words copied from device memory of GPU `device`.
inline std::vector<uint16_t> download(const void* p, long long bytes, int device) {
  std::vector<uint16_t> host(bytes / 2);
  CHECK(cudaSetDevice(device));
  CHECK(cudaMemcpy(host.data(), p, bytes, cudaMemcpyDeviceToHost));
  return host;
}

// Whether both GPUs' outputs hold the sums of the two GPUs' bf16 inputs, computed in double and
// rounded to bf16 (two addends: the fp32 sum is exact, so the kernels must match bit for bit).
inline bool bf16_sums_match(const void* const inputs[2], const void* const outputs[2],
                            long long bytes) {
  const size_t n = bytes / 2;
  std::vector<uint16_t> a(n), b(n), out(n);
  CHECK(cudaSetDevice(0));
  CHECK(cudaMemcpy(a.data(), inputs[0], bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaSetDevice(1));
  CHECK(cudaMemcpy(b.data(), inputs[1], bytes, cudaMemcpyDeviceToHost));
  for (int g = 0; g < 2; ++g) {
    CHECK(cudaSetDevice(g));
    CHECK(cudaMemcpy(out.data(), outputs[g], bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) {
      const double sum = static_cast<double>(bf16_to_float(a[i])) + bf16_to_float(b[i]);
      const __nv_bfloat16 expected = __float2bfloat16(static_cast<float>(sum));
      uint16_t bits;
      memcpy(&bits, &expected, 2);
      if (bits != out[i]) {
        fprintf(stderr, "GPU %d element %zu: got %04x, expected %04x\n", g, i, out[i], bits);
        return false;
      }
    }
  }
  return true;
}

// bf16_sums_match for two GPUs' records with `input` and `output` buffers.
template <typename Gpu>
bool outputs_match(const std::vector<Gpu>& gpus, long long bytes) {
  const void* const inputs[2] = {gpus[0].input, gpus[1].input};
  const void* const outputs[2] = {gpus[0].output, gpus[1].output};
  return bf16_sums_match(inputs, outputs, bytes);
}

// Random 32-bit words, `bytes` of them, for the copy probes.
inline std::vector<uint32_t> random_words(long long bytes, uint64_t seed) {
  std::vector<uint32_t> words(bytes / 4);
  uint64_t x = 0x9E3779B97F4A7C15ull * seed;
  for (auto& w : words) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    w = static_cast<uint32_t>(x);
  }
  return words;
}

// The options every probe takes: bytes per transfer or call, calls per sample, samples.
struct ProbeOptions {
  long long bytes = 64ll << 20;
  int calls = 10;
  int samples = 30;
};

// Reads --mib, --calls and --samples; anything else is a usage error (exit 2).
inline ProbeOptions parse_probe_options(const char* probe, int argc, char** argv) {
  ProbeOptions o;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (i + 1 >= argc) {
      fprintf(stderr, "%s: %s needs a value\n", probe, option.c_str());
      exit(2);
    }
    const char* value = argv[++i];
    if (option == "--mib") o.bytes = atoll(value) << 20;
    else if (option == "--calls") o.calls = atoi(value);
    else if (option == "--samples") o.samples = atoi(value);
    else {
      fprintf(stderr, "%s: unknown option %s\n", probe, option.c_str());
      exit(2);
    }
  }
  if (o.bytes <= 0 || o.calls <= 0 || o.samples <= 0) {
    fprintf(stderr, "%s: --mib, --calls and --samples must be positive\n", probe);
    exit(2);
  }
  return o;
}
