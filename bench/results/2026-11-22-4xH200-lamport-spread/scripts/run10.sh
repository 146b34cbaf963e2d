#!/usr/bin/env bash
# 4 x H200: Lamport two-shot up to 16 MiB by default (its kernels spread over the grid): GPU
# tests, selftests, the all-reduce sweeps at TP4 and TP2 (trtllm and vllm heuristics, tune with
# graph timing, the measured heuristic from it).
# Usage: bash bench/results/2026-11-22-4xH200-lamport-spread/scripts/run10.sh
#   Runs from any folder; needs 4 NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
#   GPURUN  staging folder for what the repository does not hold (default .gpurun at the
#           repository root):
#           tests/ (gpucomm-tests.jar, assertj-core-3.27.3.jar, byte-buddy-1.17.6.jar), junit.jar
#   WORK    scratch folder for the unpacked bundle and raw output (default $TMPDIR or /tmp; no spaces)
#   OUT     folder that receives the raw output (default bench/out, which git ignores)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
LIBS="$ROOT/bench/libs.sh"
WORK="${WORK:-${TMPDIR:-/tmp}}"
cd "$ROOT"
R="$WORK/r10"
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
  tar -czf "$OUT/r10.tar.gz" -C "$WORK" r10
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 100 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest --details=tree
step selftest-tp4 40 "$G" selftest --device cuda --world 4
step selftest-tp2 40 "$G" selftest --device cuda --world 2
for w in 4 2; do
  step bench-tp$w-trtllm 60 "$G" bench --device cuda --world $w "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp$w-trtllm --out "$R/tp$w-trtllm"
  step bench-tp$w-vllm 30 "$G" bench --device cuda --world $w "${T[@]}" --algorithms auto --heuristic vllm --name tp$w-vllm --out "$R/tp$w-vllm"
  step tune-tp$w 70 "$G" tune -f "$HERE/tune-tp$w.yaml" --out "$R/tune-tp$w"
  step bench-tp$w-measured 30 "$G" bench --device cuda --world $w "${T[@]}" --algorithms auto --heuristic measured --tuning-ref "$R/tune-tp$w/tuning.json" --name tp$w-measured --out "$R/tp$w-measured"
done
cp "$R/steps.txt" "$OUT/steps.txt"
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
tail -n 2 "$R/selftest-tp4.log"; tail -n 2 "$R/selftest-tp2.log"
for d in tp4-trtllm tp2-trtllm tp4-measured tp2-measured; do echo "== $d"; sed -n '/## Latency/,/## Eager/p' "$R/$d/report.md" | grep "^| ("; done
