#!/usr/bin/env bash
# 4 x H200, final tree (two-shot ws from 32 MiB on four ranks): GPU tests, selftest, the CUDA
# diagnostics' checks, gpucomm bench with the trtllm and vllm heuristics, tune, and the measured
# heuristic from that table (the README's `auto`).
# Usage: bash bench/results/2026-11-22-4xH200-warp-specialized/scripts/run36.sh
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
R="$WORK/r36"
mkdir -p "$R/diag" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvidia-smi topo -m; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r36.tar.gz" -C "$WORK" r36
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest \
  --select-class dev.gpucomm.runtime.hostir.programs.ProgramsOnCudaTest --details=tree
step selftest-tp4 60 "$G" selftest --device cuda --world 4
step diag-tp4 100 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 4 "$R/diag" --check
step bench-tp4-trtllm 60 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp4-trtllm --out "$R/tp4-trtllm"
step bench-tp4-vllm 40 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto --heuristic vllm --name tp4-vllm --out "$R/tp4-vllm"
step tune-tp4 70 "$G" tune -f "$HERE/tune-tp4.yaml" --out "$R/tune-tp4"
step bench-tp4-measured 40 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto --heuristic measured --tuning-ref "$R/tune-tp4/tuning.json" --name tp4-measured --out "$R/tp4-measured"
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
tail -n 1 "$R/selftest-tp4.log"
grep -E "check:|diagnostics:" "$R/diag/tp4.rank0.log" | tail -3
for d in tp4-trtllm tp4-vllm tp4-measured; do echo "== $d"; sed -n '/## Latency/,/## Eager/p' "$R/$d/report.md" | grep "^| ("; done
