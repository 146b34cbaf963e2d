#!/usr/bin/env bash
# 2 x H200: the one-shot's host path (a share of the bytes through pinned host memory beside
# NVLink): GPU tests, selftests (defaults, and the host path forced from 16 bytes at half the
# bytes), the all-reduce sweeps (trtllm and vllm heuristics, tune, the measured heuristic), the
# CUDA diagnostics (checks and bench), and the diagnostics bench with the host path off.
# Usage: bash bench/results/2026-11-22-2xH200-host-path/scripts/run51.sh
#   Runs from any folder; needs 2 NVIDIA GPUs connected by NVLink and the environment below.
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
R="$WORK/r51"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
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
  tar -czf "$OUT/r51.tar.gz" -C "$WORK" r51  # named r22 when it ran, so only the summary was kept (README)
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest \
  --select-class dev.gpucomm.runtime.hostir.programs.ProgramsOnCudaTest --details=tree
step selftest-tp2 40 "$G" selftest --device cuda --world 2
GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host-tp2 40 "$G" selftest --device cuda --world 2
step bench-tp2-trtllm 60 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp2-trtllm --out "$R/tp2-trtllm"
step bench-tp2-vllm 30 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto --heuristic vllm --name tp2-vllm --out "$R/tp2-vllm"
step tune-tp2 70 "$G" tune -f "$HERE/tune-tp2.yaml" --out "$R/tune-tp2"
step bench-tp2-measured 30 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto --heuristic measured --tuning-ref "$R/tune-tp2/tuning.json" --name tp2-measured --out "$R/tp2-measured"
mkdir -p diag
step diag 150 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 2 "$R/diag" --check --bench --samples 100 --json "$R/diag/bench.json"
mkdir -p diag-off
GPUCOMM_HOST_PATH=off step diag-off 100 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 2 "$R/diag-off" --bench --samples 100 --json "$R/diag-off/bench.json"
cp "$R/steps.txt" "$OUT/steps.txt"
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
grep -h "selftest" "$R/selftest-tp2.log" "$R/selftest-host-tp2.log"
grep -E "communicator:|check:|diagnostics:" "$R/diag/tp2.rank0.log"
for d in tp2-trtllm tp2-measured tune-tp2; do echo "== $d"; sed -n '/## Latency/,/## Eager/p' "$R/$d/report.md" | grep "^| ("; done
grep -E "^ *(1024|2048|4096) +[0-9]+ .*(nccl|oneshot_ws|oneshot_wsh|oneshot ) " "$R/diag/tp2.rank0.log"
echo "== host path off"
grep -E "^ *(2048|4096) +[0-9]+ .*(nccl|oneshot_ws|oneshot ) " "$R/diag-off/tp2.rank0.log"
