#!/usr/bin/env bash
# 4 x H200: the sweep's first-point warm-up on GPUs now 20,000 calls at the small sizes (at most
# 16 GiB moved): eager and graph figures of TP2 and TP4, each sweep twice.
# Usage: bash bench/results/2026-11-22-4xH200-reproduction/scripts/run88.sh
#   Runs from any folder; needs 4 NVIDIA GPUs connected by NVLink and the environment below.
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
R="$WORK/r88"
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
  tar -czf "$OUT/r88.tar.gz" -C "$WORK" r88
}
cd "$R"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
for world in 2 4; do
  for rep in a b; do
    step "tp$world-trtllm-$rep" 120 "$G" bench --device cuda --world $world "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name "tp$world-trtllm-$rep" --out "$R/tp$world-trtllm-$rep"
  done
  step "tp$world-vllm" 120 "$G" bench --device cuda --world $world "${T[@]}" --algorithms auto --heuristic vllm --name "tp$world-vllm" --out "$R/tp$world-vllm"
done
for d in tp*/; do echo "== $d"; grep -A10 '## Eager' "$d/report.md" | grep "MB |" | head -3; grep -A10 '## Latency' "$d/report.md" | grep "MB |" | head -3; done
