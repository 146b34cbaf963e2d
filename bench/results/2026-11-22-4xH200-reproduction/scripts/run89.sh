#!/usr/bin/env bash
# 2 x H200: our NCCL backend against PyTorch's NCCL at 16 and 32 MiB, alternating, three times each,
# then one of each with NCCL's tuning log (algorithm, protocol, channels per call).
# Usage: bash bench/results/2026-11-22-4xH200-reproduction/scripts/run89.sh
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
REPO="$ROOT"
R="$WORK/r89"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r89.tar.gz" -C "$WORK" r89
}
cd "$R"
for rep in 1 2 3; do
  step "ours-$rep" 60 "$G" bench --device cuda --world 2 --tokens 1024,2048 --hidden 8192 --algorithms nccl --name "ours-$rep" --out "$R/ours-$rep"
  step "torch-$rep" 60 python3 "$REPO/bench/compare-torch.py" --world 2 --tokens 1024,2048 --json "$R/torch-$rep.json"
done
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING step ours-tuning 60 "$G" bench --device cuda --world 2 --tokens 1024 --hidden 8192 --algorithms nccl --iterations 20 --warmup 2 --name ours-tuning --out "$R/ours-tuning"
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING step torch-tuning 60 python3 "$REPO/bench/compare-torch.py" --world 2 --tokens 1024 --iterations 20 --warmup 2
for rep in 1 2 3; do grep -A4 '## Latency' "ours-$rep/report.md" | grep "MB |"; grep -A4 '## Eager' "ours-$rep/report.md" | grep "MB |"; grep torch_nccl "torch-$rep.log"; done
