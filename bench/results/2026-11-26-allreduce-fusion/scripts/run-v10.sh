#!/usr/bin/env bash
# The state of the art's fused all-reduce beside gpucomm's, on one host: TensorRT-LLM's
# allreduce_fusion kernels as FlashInfer ships them (bench/probes/trtllm-fusion.cu: their plain
# all-reduce and all-reduce + residual + RMSNorm, one-shot and two-shot, graph and eager, every
# call shape checked against a double reference), then gpucomm's plain and fused sweeps with
# PyTorch's compositions (run-v8.sh without the GPU tests), then the probe again, so that a drift of
# the host shows. Under 480 s on 2 GPUs.
#   nvcc -O3 -arch=sm_90 -std=c++17 --expt-relaxed-constexpr -I$FLASHINFER/include \
#        -I$SPDLOG/include -o PROBES/trtllm-fusion bench/probes/trtllm-fusion.cu
#   (FlashInfer at fb28d7242b3506a2348265962041acc1fb56cca4, spdlog at
#   62302019babd8fdf63c1c6dc4c9faa48d441a7f0; the build takes about 3 minutes of one core)
# Usage: PROBES=.gpurun/probe bash bench/results/2026-11-26-allreduce-fusion/scripts/run-v10.sh
#   (with the environment of run-v3.sh for the sweeps)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROBES="${PROBES:-.gpurun/probe}"
OUT="${OUT:-/tmp/out}"
mkdir -p "$OUT"
nvidia-smi -L
probe() { # ROUND
  echo "== TensorRT-LLM's kernels, round $1"
  timeout 120 "$PROBES/trtllm-fusion" --calls 50 --samples 30 | tee "$OUT/trtllm-$1.txt"
  echo "exit ${PIPESTATUS[0]}"
}
probe 1
SKIP_JUNIT=1 TOKENS="${TOKENS:-4,32,64,96,128,192,256}" RUN="${RUN:-fusion-v10-tp2}" bash "$HERE/run-v8.sh"
probe 2
