// The stream memory operations (cuStreamWriteValue32, cuStreamWaitValue32) for the probes that
// hand work between streams through words in memory, as the runtime's host path does, and a check
// for driver calls. Include after probe.h; call load_stream_memory_operations() before use.
#pragma once

#include <cuda.h>

#define CHECK_CU(call)                                                                 \
  do {                                                                                 \
    CUresult r_ = (call);                                                              \
    if (r_ != CUDA_SUCCESS) {                                                          \
      fprintf(stderr, "%s:%d: %s: CUresult %d\n", __FILE__, __LINE__, #call, (int)r_); \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

using StreamValue32 = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
static StreamValue32 writeValue32;
static StreamValue32 waitValue32;

// Through the runtime's driver entry points, so the probes link only the static runtime.
static void load_stream_memory_operations() {
  cudaDriverEntryPointQueryResult found;
  CHECK(cudaGetDriverEntryPointByVersion("cuStreamWriteValue32",
                                         reinterpret_cast<void**>(&writeValue32), 12000,
                                         cudaEnableDefault, &found));
  CHECK(cudaGetDriverEntryPointByVersion("cuStreamWaitValue32",
                                         reinterpret_cast<void**>(&waitValue32), 12000,
                                         cudaEnableDefault, &found));
}
