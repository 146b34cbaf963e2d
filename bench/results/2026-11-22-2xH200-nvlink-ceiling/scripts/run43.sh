#!/usr/bin/env bash
# 2 x H200: the CUDA diagnostics' checks after their runs go through one session call.
# Usage: bash bench/results/2026-11-22-2xH200-nvlink-ceiling/scripts/run43.sh
#   Runs from any folder; needs 2 NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
#   WORK    scratch folder for the unpacked bundle and raw output (default $TMPDIR or /tmp; no spaces)
#   OUT     folder that receives the raw output (default bench/out, which git ignores)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
LIBS="$ROOT/bench/libs.sh"
WORK="${WORK:-${TMPDIR:-/tmp}}"
cd "$ROOT"
R="$WORK/r43"
mkdir -p "$R/diag" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
start=$SECONDS
timeout 200 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 2 "$R/diag" --check --bench --samples 20 --json "$R/diag/all.json" >"$R/diag.log" 2>&1
echo "diag: exit $? after $((SECONDS - start)) s" >>"$R/steps.txt"
tar -czf "$OUT/r43.tar.gz" -C "$WORK" r43
cat "$R/steps.txt"
grep -E "check:|diagnostics:" "$R/diag/tp2.rank0.log"
grep -E " 67108864 " "$R/diag/tp2.rank0.log" | head -8
