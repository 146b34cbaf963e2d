// What the fused all-reduce that inference engines ship costs over its own plain all-reduce:
// TensorRT-LLM's allreduce_fusion kernels, as FlashInfer packages them
// (include/flashinfer/comm/trtllm_allreduce_fusion.cuh, the kernels the first seed's heuristic
// tunes), on two GPUs of one process. For each call shape it times
//
//   plain   pattern kAllReduce: the all-reduce alone, into its own output
//   fused   pattern kARResidualRMSNorm: out = RMSNorm(allreduce(x) + residual) * gamma, with the
//           updated residual written too (gpucomm's allreduceResidualRmsNorm)
//
// each as the one-shot (Lamport buffers, a cluster of blocks per token) and as the two-shot
// (a flag barrier between a reduce-scatter and an all-gather through peer buffers), bf16 with fp32
// accumulation, launched with programmatic dependent launch as FlashInfer launches them; in CUDA
// graphs of back-to-back calls and eagerly. The workspace is laid out as FlashInfer's
// trtllm_create_ipc_workspace_for_all_reduce_fusion lays it out (comm, barrier-flag and
// triple Lamport buffers of every rank, then the rank's own control words), the Lamport buffers
// filled with -0.0 as trtllm_lamport_initialize fills them; here the peers' buffers are reached
// through peer access instead of IPC handles.
//
// The outputs are filled with NaN before each measurement (graph and eager apart), and the last
// call of each is checked on both GPUs against a double-precision reference of the whole pattern:
// the plain all-reduce bit for bit (two bf16 addends, an fp32 sum), the updated residual within
// 2^-7 of |x0 + x1| + |residual|, out within 2^-7 of its value plus the residual's tolerance
// carried through the norm; both GPUs' outputs must be bit-identical. The fill moves some of their
// timings by up to 0.85 us although they never read their outputs (run-v12.sh of
// bench/results/2026-11-26-allreduce-fusion); gpucomm bench fills its outputs the same way.
//
// FlashInfer and spdlog (which FlashInfer's logging header includes) are not part of this tree:
//
//   nvcc -O3 -arch=sm_90 -std=c++17 --expt-relaxed-constexpr -I$FLASHINFER/include \
//        -I$SPDLOG/include -o trtllm-fusion bench/probes/trtllm-fusion.cu
//   ./trtllm-fusion [--calls 10] [--samples 30]
// For timing comparisons only (a call that writes nothing can then pass the graph run's check):
// TRTLLM_FUSION_SETTLING_CALLS=N runs N untimed calls between the fill and each measurement, and
// TRTLLM_FUSION_CLEAR=0 skips the fill.
#include "flashinfer/comm/trtllm_allreduce_fusion.cuh"

#include <cmath>

#include "probe.h"

namespace fusion = flashinfer::trtllm_allreduce_fusion;
using bf16 = __nv_bfloat16;
using Pattern = fusion::AllReduceFusionPattern;

constexpr int RANKS = 2;
constexpr int HIDDEN = 8192;
constexpr int MAX_TOKENS = 256;
constexpr long long ROW_BYTES = HIDDEN * 2;
constexpr long long CAPACITY = MAX_TOKENS * ROW_BYTES;  // one tensor of the largest call
constexpr float EPS = 1e-6f;

// One rank's buffers: FlashInfer's three workspace buffers, its control words, the device array
// of workspace pointers the kernels read, and the call's tensors.
struct Gpu {
  cudaStream_t stream;
  void* comm;     // two-shot: the rank's input, then the reduced slices (2 x the largest call)
  void* flags;    // two-shot: barrier flags, kBarrierFlagCount per rank
  void* lamport;  // one-shot: three slots of RANKS x the largest call
  int* control;   // counter, flag, Lamport flag, Lamport slot size, clear size
  void** workspace;
  void* input;
  void* output;  // plain: the all-reduce
  void* residualIn;
  void* residualOut;
  void* normOut;
  void* gamma;
};

constexpr long long COMM_BYTES = RANKS * CAPACITY;
constexpr long long FLAG_BYTES = RANKS * fusion::details::kBarrierFlagCount * 4;
constexpr long long LAMPORT_SLOT_BYTES = RANKS * CAPACITY;

void launch(Gpu& gpu, int rank, Pattern pattern, bool oneshot, int tokens) {
  fusion::AllReduceFusionParams<bf16> params{};
  params.nranks = RANKS;
  params.rank = rank;
  params.size = tokens * HIDDEN;
  params.hidden_dim = HIDDEN;
  params.workspace = gpu.workspace;
  params.allreduce_in = gpu.input;
  const bool plain = pattern == Pattern::kAllReduce;
  params.allreduce_out = plain ? gpu.output : nullptr;
  params.residual_in = plain ? nullptr : gpu.residualIn;
  params.residual_out = plain ? nullptr : gpu.residualOut;
  params.norm_out = plain ? nullptr : gpu.normOut;
  params.rms_gamma = plain ? nullptr : gpu.gamma;
  params.rms_eps = EPS;
  params.use_oneshot = oneshot;
  params.stream = gpu.stream;
  params.pattern = pattern;
  params.trigger_completion_at_end = true;
  CHECK(fusion::allreduce_fusion_op(params, /*launch_with_pdl=*/true, /*fp32_acc=*/true));
}

std::vector<double> as_doubles(const std::vector<uint16_t>& bits) {
  std::vector<double> values(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) values[i] = bf16_to_float(bits[i]);
  return values;
}

// The fused pattern's outputs on both GPUs against the double reference (see the header).
bool fused_outputs_match(const std::vector<Gpu>& gpus, int tokens) {
  const long long bytes = tokens * ROW_BYTES;
  const auto x0 = as_doubles(download(gpus[0].input, bytes, 0));
  const auto x1 = as_doubles(download(gpus[1].input, bytes, 1));
  const auto residual = as_doubles(download(gpus[0].residualIn, bytes, 0));
  const auto gamma = as_doubles(download(gpus[0].gamma, ROW_BYTES, 0));
  std::vector<uint16_t> firstResidualOut, firstOut;
  for (int g = 0; g < RANKS; ++g) {
    const auto residualOutBits = download(gpus[g].residualOut, bytes, g);
    const auto outBits = download(gpus[g].normOut, bytes, g);
    for (int t = 0; t < tokens; ++t) {
      double squares = 0;
      for (int h = 0; h < HIDDEN; ++h) {
        const size_t i = static_cast<size_t>(t) * HIDDEN + h;
        const double r = x0[i] + x1[i] + residual[i];
        squares += r * r;
      }
      const double rms = std::sqrt(squares / HIDDEN + EPS);
      for (int h = 0; h < HIDDEN; ++h) {
        const size_t i = static_cast<size_t>(t) * HIDDEN + h;
        const double r = x0[i] + x1[i] + residual[i];
        const double rTolerance = std::ldexp(std::fabs(x0[i] + x1[i]) + std::fabs(residual[i]), -7);
        const double gotR = bf16_to_float(residualOutBits[i]);
        if (!(std::fabs(gotR - r) <= rTolerance)) {  // NaN fails too
          fprintf(stderr, "GPU %d token %d element %d: residualOut %g, expected %g\n", g, t, h,
                  gotR, r);
          return false;
        }
        const double out = r / rms * gamma[h];
        const double outTolerance =
            std::ldexp(std::fabs(out), -7) + rTolerance / rms * std::fabs(gamma[h]);
        const double gotOut = bf16_to_float(outBits[i]);
        if (!(std::fabs(gotOut - out) <= outTolerance)) {
          fprintf(stderr, "GPU %d token %d element %d: out %g, expected %g\n", g, t, h, gotOut,
                  out);
          return false;
        }
      }
    }
    if (g == 0) {
      firstResidualOut = residualOutBits;
      firstOut = outBits;
    } else if (residualOutBits != firstResidualOut || outBits != firstOut) {
      fprintf(stderr, "the GPUs' fused outputs differ\n");
      return false;
    }
  }
  return true;
}

// Fills every output of every GPU with NaN (bf16 0xffff), so that a call that writes nothing fails
// the check.
void clear_outputs(const std::vector<Gpu>& gpus) {
  for (int g = 0; g < RANKS; ++g) {
    CHECK(cudaSetDevice(g));
    for (void* p : {gpus[g].output, gpus[g].residualOut, gpus[g].normOut})
      CHECK(cudaMemset(p, 0xff, CAPACITY));
    CHECK(cudaDeviceSynchronize());
  }
}

int main(int argc, char** argv) {
  ProbeOptions options = parse_probe_options("trtllm-fusion", argc, argv);
  // untimed calls between the fill and each measurement (3000 take 15-100 ms on every GPU), and
  // whether to fill at all: see the header
  const char* settlingText = getenv("TRTLLM_FUSION_SETTLING_CALLS");
  const int settlingCalls = settlingText == nullptr ? 0 : atoi(settlingText);
  const char* clearText = getenv("TRTLLM_FUSION_CLEAR");
  const bool clearing = clearText == nullptr || strcmp(clearText, "0") != 0;
  std::vector<Gpu> gpus(RANKS);
  for (int g = 0; g < RANKS; ++g) {
    Gpu& gpu = gpus[g];
    CHECK(cudaSetDevice(g));
    CHECK(cudaDeviceEnablePeerAccess(1 - g, 0));
    CHECK(cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&gpu.comm, COMM_BYTES));
    CHECK(cudaMalloc(&gpu.flags, FLAG_BYTES));
    CHECK(cudaMemset(gpu.flags, 0, FLAG_BYTES));
    CHECK(cudaMalloc(&gpu.lamport, 3 * LAMPORT_SLOT_BYTES));
    const std::vector<uint16_t> empty(3 * LAMPORT_SLOT_BYTES / 2, 0x8000);  // -0.0: not landed
    CHECK(cudaMemcpy(gpu.lamport, empty.data(), 3 * LAMPORT_SLOT_BYTES, cudaMemcpyHostToDevice));
    const int control[5] = {0, 0, 0, static_cast<int>(LAMPORT_SLOT_BYTES), 0};
    CHECK(cudaMalloc(&gpu.control, sizeof(control)));
    CHECK(cudaMemcpy(gpu.control, control, sizeof(control), cudaMemcpyHostToDevice));
    for (void** p : {&gpu.input, &gpu.output, &gpu.residualIn, &gpu.residualOut, &gpu.normOut})
      CHECK(cudaMalloc(p, CAPACITY));
    CHECK(cudaMalloc(&gpu.gamma, ROW_BYTES));
    // residual and gamma are the same on both GPUs, as in a model
    const auto input = random_bf16(CAPACITY, g + 1), residual = random_bf16(CAPACITY, 5);
    const auto gamma = random_bf16(ROW_BYTES, 7);
    CHECK(cudaMemcpy(gpu.input, input.data(), CAPACITY, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(gpu.residualIn, residual.data(), CAPACITY, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(gpu.gamma, gamma.data(), ROW_BYTES, cudaMemcpyHostToDevice));
  }
  for (int g = 0; g < RANKS; ++g) {
    std::vector<void*> workspace;
    for (int r = 0; r < RANKS; ++r) workspace.push_back(gpus[r].comm);
    for (int r = 0; r < RANKS; ++r) workspace.push_back(gpus[r].flags);
    for (int r = 0; r < RANKS; ++r) workspace.push_back(gpus[r].lamport);
    workspace.push_back(gpus[g].control);
    CHECK(cudaSetDevice(g));
    CHECK(cudaMalloc(&gpus[g].workspace, workspace.size() * sizeof(void*)));
    CHECK(cudaMemcpy(gpus[g].workspace, workspace.data(), workspace.size() * sizeof(void*),
                     cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s x %d: TensorRT-LLM allreduce_fusion (FlashInfer), tokens x %d bf16, fp32 "
         "accumulation, PDL; %d calls per sample, median of %d, us per call\n",
         prop.name, RANKS, HIDDEN, options.calls, options.samples);
  printf("%-8s %-7s %6s %9s %8s %8s  %s\n", "kernel", "pattern", "tokens", "bytes", "graph",
         "eager", "check");
  const std::vector<cudaStream_t> streams{gpus[0].stream, gpus[1].stream};
  int failures = 0;
  for (int tokens : {4, 32, 64, 96, 128, 192, 256}) {
    for (bool oneshot : {true, false}) {
      for (Pattern pattern : {Pattern::kAllReduce, Pattern::kARResidualRMSNorm}) {
        auto call = [&](int g) { launch(gpus[g], g, pattern, oneshot, tokens); };
        auto checked = [&]() {
          for (int g = 0; g < RANKS; ++g) {
            CHECK(cudaSetDevice(g));
            CHECK(cudaDeviceSynchronize());
          }
          return pattern == Pattern::kAllReduce ? outputs_match(gpus, tokens * ROW_BYTES)
                                                : fused_outputs_match(gpus, tokens);
        };
        // Whether the host's checks, which leave the GPUs idle for tens of milliseconds, slow the
        // next measurement: they did not (run-v12.sh), so none run by default.
        auto settle = [&]() {
          for (int k = 0; k < settlingCalls; ++k) {
            for (int g = 0; g < RANKS; ++g) {
              CHECK(cudaSetDevice(g));
              call(g);
            }
          }
        };
        if (clearing) clear_outputs(gpus);
        settle();
        const double graph =
            median_us_per_call(streams, true, options.calls, options.samples, call);
        const bool graphOk = checked();
        if (clearing) clear_outputs(gpus);
        settle();
        const double eager =
            median_us_per_call(streams, false, options.calls, options.samples, call);
        const bool ok = graphOk && checked();
        failures += ok ? 0 : 1;
        printf("%-8s %-7s %6d %9lld %8.2f %8.2f  %s\n", oneshot ? "oneshot" : "twoshot",
               pattern == Pattern::kAllReduce ? "plain" : "fused", tokens, tokens * ROW_BYTES,
               graph, eager, ok ? "checked" : "MISMATCH");
        fflush(stdout);
      }
    }
  }
  return failures == 0 ? 0 : 3;
}
