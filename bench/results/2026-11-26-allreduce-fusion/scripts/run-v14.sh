#!/usr/bin/env bash
# Two blocks finishing each row of the fused one-shot's spread kernel (FusedRowCopies: on two ranks
# for calls of 8 rows up to half the grid, GPUCOMM_FUSED_ROW_COPIES=auto, the default) against one
# block a row (GPUCOMM_FUSED_ROW_COPIES=1), and the fused kernels taking their structures from
# parameter space (__grid_constant__): first bench/probes/fused-residency.cu twice (its full-w2 and
# full-w2-copies variants are the runtime's kernel with one and with two blocks a row, each with
# the structures copied to the stack as before and left in parameter space), then run-v5.sh for
# that setting at tokens 1-256 x 8192 bf16: the fused GPU tests, selftest, plain / auto / 1 / auto
# again in CUDA graphs (one-shot and two-shot), every point validated on every rank, and PyTorch's
# fused compositions in the same run. Under 600 s on 2 GPUs.
# Usage: PROBES=DIR bash bench/results/2026-11-26-allreduce-fusion/scripts/run-v14.sh
#   PROBES holds fused-residency, built as its header says (environment of run-v3.sh)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
PROBES="${PROBES:-$ROOT/.gpurun/probe}"
for round in 1 2; do
  timeout 100 "$PROBES/fused-residency" --calls 10 --samples 30 >"$OUT/fused-residency-$round.txt" 2>&1
  echo "fused-residency round $round: exit $?"
done
grep -E "^(full-w2|full-w2-copies|lean-full|copies-2|plain-pairs) " "$OUT/fused-residency-1.txt"
OUT="$OUT" TOGGLE=GPUCOMM_FUSED_ROW_COPIES ON_NAME=copies OFF_NAME=one ON_VALUE=auto OFF_VALUE=1 \
  RUN="${RUN:-fusion-v14-tp2}" TOKENS="${TOKENS:-1,2,4,8,16,32,64,96,128,192,256}" \
  BUDGET=520 SWEEP_LIMIT=60 JUNIT_LIMIT=150 bash "$HERE/run-v5.sh"
