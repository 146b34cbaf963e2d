#!/usr/bin/env bash
# The fused two-shot on the wide grid (twice the blocks of half the threads for calls of more rows
# than the fixed grid has blocks, the default) against the fixed grid (GPUCOMM_FUSED_WIDE_GRID=off):
# run-v5.sh for that setting at tokens 32-256 x 8192 bf16 (the fused GPU tests, selftest, plain /
# wide / fixed / wide again in CUDA graphs, every point validated on every rank, PyTorch's fused
# compositions), then wide / fixed / wide at tokens 128-512 x 4096 bf16, where the wide grid's
# blocks still have two rows at 512. Under 500 s on 2 GPUs.
# Usage: bash bench/results/2026-11-26-allreduce-fusion/scripts/run-v7.sh   (environment of run-v3.sh)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
WORLD="${WORLD:-2}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-fusion-v7-tp$WORLD}"
TOGGLE=GPUCOMM_FUSED_WIDE_GRID ON_NAME=wide OFF_NAME=fixed RUN="$RUN" TOKENS=32,64,128,192,256 \
  bash "$HERE/run-v5.sh"
R="$WORK/r$RUN"
G="$WORK/g/gpucomm/bin/gpucomm"
T=(--device cuda --world "$WORLD" --tokens 128,256,384,512 --hidden 4096 --dtype bf16
  --algorithms twoshot -n 200 --pattern allreduceResidualRmsNorm)
for run in wide:on fixed:off wide-again:on; do
  name="h4096-${run%%:*}-tp$WORLD"
  start=$SECONDS
  timeout 40 env GPUCOMM_FUSED_WIDE_GRID="${run##*:}" "$G" bench "${T[@]}" --name "$name" \
    --out "$R/$name" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s" | tee -a "$R/steps.txt"
  echo "== $name" && awk '/^## Latency/ {on = 1; next} /^## / {on = 0} on && /^\|/' "$R/$name/report.md"
done
OUT="${OUT:-$ROOT/bench/out}"
tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
