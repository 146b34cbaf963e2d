#!/usr/bin/env bash
# TensorRT-LLM's kernels timed as gpucomm bench times its own. gpucomm bench captures 10 calls a
# CUDA graph and times each replay (CALLS_PER_GRAPH in BenchmarkSweep), so every tenth call pays a
# graph launch; the probes of run-v10.sh capture 50. Here, on one host:
#   1. bench/probes/trtllm-fusion.cu with --calls 10 and --calls 50;
#   2. bench/probes/fused-twoshot.cu (the runtime's fused_lamport2 and fused_lamport2_own, built
#      from fusion.cu for world 2) with --calls 10 and --calls 50: the same kernels the sweep below
#      times, so the probe's 10-call figures can be set against the sweep's;
#   3. gpucomm bench, plain and fused, at the same shapes (run-v8.sh without the GPU tests);
#   4. the plain sweep at 4-64 tokens with the Lamport kernels' grid cut to 32 and 66 blocks
#      (GPUCOMM_LAMPORT_BLOCKS; TensorRT-LLM's one-shot runs a cluster of blocks per token, 32
#      blocks at 4 tokens, where gpucomm's runs every multiprocessor).
# Under 420 s on 2 GPUs. Build the probes as run-v10.sh and run-v9.sh say.
# Usage: PROBES=.gpurun/probe bash bench/results/2026-11-26-allreduce-fusion/scripts/run-v11.sh
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROBES="${PROBES:-.gpurun/probe}"
OUT="${OUT:-/tmp/out}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
mkdir -p "$OUT"
nvidia-smi -L
for calls in 10 50; do
  echo "== TensorRT-LLM's kernels, $calls calls a graph"
  timeout 120 "$PROBES/trtllm-fusion" --calls "$calls" --samples 30 | tee "$OUT/trtllm-calls$calls.txt"
  echo "exit ${PIPESTATUS[0]}"
  echo "== gpucomm's fused two-shot kernels, $calls calls a graph"
  FUSED_TWOSHOT_MODES=full,runtime-own timeout 150 "$PROBES/fused-twoshot" --calls "$calls" \
    --samples 30 | tee "$OUT/fused-twoshot-calls$calls.txt" | grep -v registers
  echo "exit ${PIPESTATUS[0]}"
done
TOKENS="${TOKENS:-4,32,64,96,128,192,256}"
SKIP_JUNIT=1 TOKENS="$TOKENS" RUN="${RUN:-fusion-v11-tp2}" bash "$HERE/run-v8.sh"
G="$WORK/g/gpucomm/bin/gpucomm"
for blocks in 32 66; do
  echo "== plain, GPUCOMM_LAMPORT_BLOCKS=$blocks"
  GPUCOMM_LAMPORT_BLOCKS=$blocks timeout 60 "$G" bench --device cuda --world 2 --tokens 4,32,64 \
    --hidden 8192 --dtype bf16 --algorithms oneshot -n 200 --name "plain-blocks$blocks" \
    --out "$OUT/plain-blocks$blocks" >"$OUT/plain-blocks$blocks.log" 2>&1
  echo "exit $?"
  awk '/^## Latency/ {on = 1; next} /^## / {on = 0} on && /^\|/' "$OUT/plain-blocks$blocks/report.md"
done
