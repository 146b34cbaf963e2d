#!/usr/bin/env bash
# 4 × H200: gpucomm tune with graph timing (the table ranks by graph medians), then the measured
# heuristic from those tables, at TP2 and TP4.
# Usage: bash bench/results/2026-11-22-4xH200-pdl-overlap/scripts/run6.sh
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
R="$WORK/r6"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r6.tar.gz" -C "$WORK" r6
}
cd "$R"
step tune-tp2 60 "$G" tune -f "$HERE/tune-tp2.yaml" --out "$R/tune-tp2"
step bench-tp2-measured 30 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto --heuristic measured --tuning-ref "$R/tune-tp2/tuning.json" --name tp2-measured --out "$R/tp2-measured"
step tune-tp4 60 "$G" tune -f "$HERE/tune-tp4.yaml" --out "$R/tune-tp4"
step bench-tp4-measured 30 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto --heuristic measured --tuning-ref "$R/tune-tp4/tuning.json" --name tp4-measured --out "$R/tp4-measured"
cp "$R/steps.txt" "$OUT/steps.txt"
cat "$R/steps.txt"
for d in tp2-measured tp4-measured; do echo "== $d"; sed -n '/## Latency/,/## Eager/p' "$R/$d/report.md" | grep "^| ("; done
grep -h "^| (" "$R/tune-tp2/report.md" | head -8
