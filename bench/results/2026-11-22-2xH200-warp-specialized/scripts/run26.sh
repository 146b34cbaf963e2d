#!/usr/bin/env bash
# 2 x H200: columnParallelLinear at TP2 with instantaneous power (power.draw.instant) and SM clock
# sampled every 5 ms (nvidia-smi queries only): the power each form draws under the cap.
# Usage: bash bench/results/2026-11-22-2xH200-warp-specialized/scripts/run26.sh
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
R="$WORK/r26"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
for run in 1; do
  nvidia-smi --query-gpu=timestamp,index,clocks.sm,power.draw.instant,power.draw.average,clocks_event_reasons.active --format=csv,nounits -lms 5 >"$R/smi-$run.csv" 2>&1 &
  smi=$!
  sleep 1
  date -u +%H:%M:%S.%N >"$R/start-$run.txt"
  timeout 120 "$G" run -f "$HERE/programs/column-parallel-linear-tp2.yaml" --out "$R/column-parallel-linear-tp2-$run" >"$R/column-parallel-linear-tp2-$run.log" 2>&1
  echo "exit $?" >>"$R/start-$run.txt"
  date -u +%H:%M:%S.%N >>"$R/start-$run.txt"
  sleep 1
  kill $smi
done
tar -czf "$OUT/r26.tar.gz" -C "$WORK" r26
for run in 1; do cat "$R/start-$run.txt"; grep -E '^\| ' "$R/column-parallel-linear-tp2-$run.log" | head -8; wc -l "$R/smi-$run.csv"; done
head -3 "$R/smi-1.csv"
