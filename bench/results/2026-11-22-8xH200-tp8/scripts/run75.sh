#!/usr/bin/env bash
# 8 x H200: PyTorch's all-reduce at TP8 (compare-torch.py with its per-element check), then the
# TP8 sweep again with run 73's tuning table (measured heuristic) and the 64 MiB bench repeated.
# Usage: bash bench/results/2026-11-22-8xH200-tp8/scripts/run75.sh
#   Runs from any folder; needs 8 NVIDIA GPUs connected by NVLink and the environment below.
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
W="$ROOT"
R="$WORK/r75"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
source "$LIBS" >"$R/libs.txt" 2>&1
export GPUCOMM_JAVA_OPTS="-Xmx8g"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r75.tar.gz" -C "$WORK" r75
}
D="bash $ROOT/bench/cuda-diagnostics.sh $G"
step torch-tp8 240 python3 "$W/bench/compare-torch.py" --world 8 --tokens 32,64,128,256,512,1024,2048,4096 --json "$R/torch-tp8.json"
step bench-tp8-measured 90 "$G" bench --device cuda --world 8 "${T[@]}" --algorithms auto,nccl,twoshot --heuristic measured --tuning-ref "$HERE/tuning-tp8.json" --name tp8-measured --out "$R/tp8-measured"
for i in 1 2; do
  mkdir -p "$R/repeat-$i"
  step "repeat-$i" 60 $D 8 "$R/repeat-$i" --bench --samples 100 --runners nccl,kernel:twoshot,twoshot --tokens 2048,4096
done
cat "$R/steps.txt"
tail -30 "$R/torch-tp8.log"
sed -n '/## Latency/,/## Eager/p' "$R/tp8-measured/report.md" | grep "^| ("
for i in 1 2; do grep -E "^ *(2048|4096) +[0-9]+ " "$R/repeat-$i/tp8.rank0.log"; done
