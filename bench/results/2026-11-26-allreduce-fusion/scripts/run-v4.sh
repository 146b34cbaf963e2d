#!/usr/bin/env bash
# The fused kernels against PyTorch in the same run: run-v3.sh (the fused GPU tests, selftest,
# plain and fused sweeps at tokens 4-256 x 8192 bf16, every point validated on every rank), then
# bench/compare-torch.py with the fused pattern
# (NCCL and symmetric-memory all-reduce + rms_norm, eager and in CUDA graphs), in under 300 s.
# On an H200 host it also runs the fabric sweep's intra-node matrix (../../2026-11-26-fabric-sweep/).
# Usage: bash bench/results/2026-11-26-allreduce-fusion/scripts/run-v4.sh   (environment of run-v3.sh)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
export OUT
bash "$HERE/run-v3.sh"
echo "== PyTorch, the fused pattern"
timeout 150 python3 "$ROOT/bench/compare-torch.py" --world 2 --port 29702 --tokens 32,64,128,256 \
  --hidden 8192 --pattern allreduceResidualRmsNorm --iterations 100 >"$OUT/torch-fused.txt" 2>&1
echo "compare-torch: exit $?"
tail -25 "$OUT/torch-fused.txt"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  bash "$ROOT/bench/results/2026-11-26-fabric-sweep/scripts/run-gpu.sh"
fi
