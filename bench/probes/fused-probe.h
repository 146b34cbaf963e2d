// What the probes of the fused all-reduce + residual + RMSNorm share: each GPU's buffers of a call
// of rows of bf16, and the check of a call's outputs on two GPUs against a host reference. Include
// after fusion.cu (for FusionControl and FusionPeers) and probe.h.
#pragma once

#include <cmath>
#include <vector>

// One GPU's side of the pattern: its stream, the call's buffers of `capacity` bytes (gamma one
// row), the peer-visible area and the per-block control words.
struct FusedGpu {
  cudaStream_t stream;
  char *input, *residualIn, *gamma, *residualOut, *output, *area;
  FusionControl* control;
};

// Opens GPUs 0 and 1 to each other and gives each its stream and buffers: random inputs (another
// on each GPU), the same random residual and gamma on both, as in a model. The area (areaBytes)
// and control (controlBytes) are allocated, not filled; peers.base[g] is GPU g's area.
inline std::vector<FusedGpu> open_fused_gpus(FusionPeers& peers, long long capacity,
                                             long long rowBytes, long long areaBytes,
                                             long long controlBytes) {
  std::vector<FusedGpu> gpus(2);
  for (int g = 0; g < 2; ++g) {
    FusedGpu& gpu = gpus[g];
    CHECK(cudaSetDevice(g));
    CHECK(cudaDeviceEnablePeerAccess(1 - g, 0));
    CHECK(cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking));
    for (char** p : {&gpu.input, &gpu.residualIn, &gpu.residualOut, &gpu.output})
      CHECK(cudaMalloc(p, capacity));
    CHECK(cudaMalloc(&gpu.gamma, rowBytes));
    CHECK(cudaMalloc(&gpu.area, areaBytes));
    CHECK(cudaMalloc(&gpu.control, controlBytes));
    const auto input = random_bf16(capacity, g + 1), residual = random_bf16(capacity, 5);
    const auto gamma = random_bf16(rowBytes, 7);
    CHECK(cudaMemcpy(gpu.input, input.data(), capacity, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(gpu.residualIn, residual.data(), capacity, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(gpu.gamma, gamma.data(), rowBytes, cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());
    peers.base[g] = gpu.area;
  }
  return gpus;
}

// The one-shot Lamport kernels' layout of the area: three slots of both ranks' rows of `capacity`
// bytes each, and per-block control for the whole grid.
inline FusionLayout lamport_oneshot_layout(long long capacity) {
  FusionLayout layout = {};
  layout.lamportOffset = 0;
  layout.rowCapacity = capacity;
  layout.controlBlocks = FUSION_MAX_BLOCKS;
  return layout;
}

inline long long lamport_oneshot_area_bytes(long long capacity) { return 3 * 2 * capacity; }

// Fills both GPUs' areas with the Lamport sentinel (bf16 -0.0 in every lane: empty) and zeroes
// their control words, as a fresh communicator starts.
inline void reset_fused_areas(std::vector<FusedGpu>& gpus, long long areaBytes,
                              long long controlBytes) {
  const std::vector<uint16_t> sentinel(areaBytes / 2, 0x8000);
  for (int g = 0; g < 2; ++g) {
    CHECK(cudaSetDevice(g));
    CHECK(cudaMemcpy(gpus[g].area, sentinel.data(), areaBytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(gpus[g].control, 0, controlBytes));
    CHECK(cudaDeviceSynchronize());
  }
}

// Fills both GPUs' outputs with 0xff bytes (NaN), so that a kernel that writes nothing fails the
// check.
inline void fill_fused_outputs(std::vector<FusedGpu>& gpus, long long capacity) {
  for (int g = 0; g < 2; ++g) {
    CHECK(cudaSetDevice(g));
    CHECK(cudaMemset(gpus[g].residualOut, 0xff, capacity));
    CHECK(cudaMemset(gpus[g].output, 0xff, capacity));
    CHECK(cudaDeviceSynchronize());
  }
}

// What a variant's last call must have written.
struct FusedExpectation {
  bool residualAdded;  // residualOut = input0 + input1 (+ residualIn when true), rounded to bf16
  bool normalized;     // out = RMSNorm(residualOut) * gamma, checked; else out is not looked at
  bool zeroUnsigned;   // a residualOut of -0.0 arrives as +0.0 (the two-shot's gather)
};

// Checks the last call of `tokens` rows of `hidden` bf16 on both GPUs: residualOut bit for bit
// against the host's bf16 sums, out within 2^-7 relative of a double reference and bit for bit
// between the GPUs. Prints the first mismatch.
inline bool check_fused_outputs(std::vector<FusedGpu>& gpus, long long tokens, int hidden,
                                const FusedExpectation& expected) {
  const long long rowBytes = hidden * 2LL, bytes = tokens * rowBytes, n = bytes / 2;
  const auto a = download(gpus[0].input, bytes, 0), b = download(gpus[1].input, bytes, 1);
  bool ok = true;
  std::vector<std::vector<uint16_t>> outs;
  for (int g = 0; g < 2; ++g) {
    const auto residualIn = download(gpus[g].residualIn, bytes, g);
    const auto gamma = download(gpus[g].gamma, rowBytes, g);
    const auto residualOut = download(gpus[g].residualOut, bytes, g);
    std::vector<float> rounded(n);
    for (long long i = 0; i < n; ++i) {
      float sum = bf16_to_float(a[i]) + bf16_to_float(b[i]);
      if (expected.residualAdded) sum += bf16_to_float(residualIn[i]);
      uint16_t want = to_bf16(sum);
      if (expected.zeroUnsigned && want == 0x8000) want = 0;
      rounded[i] = bf16_to_float(want);
      if (ok && residualOut[i] != want) {
        fprintf(stderr, "GPU %d residualOut %lld: %04x, expected %04x\n", g, i, residualOut[i], want);
        ok = false;
      }
    }
    if (!expected.normalized) continue;
    outs.push_back(download(gpus[g].output, bytes, g));
    for (long long row = 0; row < tokens && ok; ++row) {
      double squares = 0;
      for (int j = 0; j < hidden; ++j) squares += (double)rounded[row * hidden + j] * rounded[row * hidden + j];
      const double inverseRms = 1.0 / std::sqrt(squares / hidden + 1e-6);
      for (int j = 0; j < hidden; ++j) {
        const double want = rounded[row * hidden + j] * inverseRms * bf16_to_float(gamma[j]);
        const double got = bf16_to_float(outs[g][row * hidden + j]);
        if (std::fabs(got - want) > std::fabs(want) / 128 + 1e-6) {
          fprintf(stderr, "GPU %d out %lld: %g, expected %g\n", g, row * hidden + j, got, want);
          ok = false;
          break;
        }
      }
    }
  }
  if (ok && outs.size() == 2 && outs[0] != outs[1]) {
    fprintf(stderr, "out differs between the GPUs\n");
    ok = false;
  }
  return ok;
}
