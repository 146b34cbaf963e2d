#!/usr/bin/env bash
# 2 x H200: eager time of the small sizes against the warm-up before the first point (JIT state),
# timed iterations and JIT tiers.
# Usage: bash bench/results/2026-11-22-4xH200-reproduction/scripts/run87.sh
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
R="$WORK/r87"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r87.tar.gz" -C "$WORK" r87
}
cd "$R"
T=(--tokens 32,64,128 --hidden 8192 --algorithms nccl,oneshot,twoshot)
for world in 2 4; do
  for rep in a b; do
    for w in 20 2000 20000; do
      GPUCOMM_JAVA_OPTS="-Xmx16g" step "tp$world-w$w-$rep" 90 "$G" bench --device cuda --world $world "${T[@]}" --warmup $w --name "tp$world-w$w-$rep" --out "$R/tp$world-w$w-$rep"
    done
  done
  GPUCOMM_JAVA_OPTS="-Xmx16g" step "tp$world-i2000" 90 "$G" bench --device cuda --world $world "${T[@]}" --iterations 2000 --name "tp$world-i2000" --out "$R/tp$world-i2000"
  GPUCOMM_JAVA_OPTS="-Xmx16g -XX:TieredStopAtLevel=1" step "tp$world-c1-w20000" 90 "$G" bench --device cuda --world $world "${T[@]}" --warmup 20000 --name "tp$world-c1-w20000" --out "$R/tp$world-c1-w20000"
done
for d in tp*/; do echo "== $d"; grep -A5 '## Eager' "$d/report.md" | grep MB; grep -A5 '## Latency' "$d/report.md" | grep MB | head -1; done
