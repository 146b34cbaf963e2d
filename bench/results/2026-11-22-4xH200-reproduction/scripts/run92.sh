#!/usr/bin/env bash
# 2 x H200: our NCCL at 16 MiB from graphs under NCCL settings that touch graph capture, against
# PyTorch's on the same host (and whether PyTorch's buffers register in graph capture).
# Usage: bash bench/results/2026-11-22-4xH200-reproduction/scripts/run92.sh
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
R="$WORK/r92"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r92.tar.gz" -C "$WORK" r92
}
cd "$R"
ours() { step "$1" 60 "$G" bench --device cuda --world 2 --tokens 1024,2048 --hidden 8192 --algorithms nccl --name "$1" --out "$R/$1"; }
ours default-1
NCCL_GRAPH_MIXING_SUPPORT=0 ours mixing-off
NCCL_LEGACY_CUDA_REGISTER=1 ours legacy-register
ours default-2
step torch 60 python3 "$REPO/bench/compare-torch.py" --world 2 --tokens 1024,2048 --json "$R/torch.json"
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=REG step torch-reg 60 python3 "$REPO/bench/compare-torch.py" --world 2 --tokens 1024 --iterations 20 --warmup 2
for d in default-1 mixing-off legacy-register default-2; do echo "$d: $(grep 'MB |' $d/report.md | head -2 | awk -F'|' '{print $3 $4}' | tr '\n' ' ')"; done
grep torch_nccl torch.log
grep -i "regist" torch-reg.log | sort | uniq -c | sort -rn | head -5
