#!/usr/bin/env bash
# 2 x H200, the final tree (the kernel a call runs chosen by KernelShape): every GPU test,
# selftests (defaults, and the specialized kernels forced at every size), the trtllm sweep and the
# CUDA diagnostics.
# Usage: bash bench/results/2026-11-22-2xH200-warp-specialized/scripts/run24.sh
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
R="$WORK/r24"
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
  tar -czf "$OUT/r24.tar.gz" -C "$WORK" r24
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest \
  --select-class dev.gpucomm.runtime.hostir.programs.ProgramsOnCudaTest --details=tree
step selftest-tp2 40 "$G" selftest --device cuda --world 2
GPUCOMM_ONESHOT_WS_MIN_BYTES=16 GPUCOMM_TWOSHOT_WS_MIN_BYTES=16 GPUCOMM_LAMPORT_MAX_BYTES=0 GPUCOMM_LAMPORT2_MAX_BYTES=0 \
  step selftest-ws-tp2 40 "$G" selftest --device cuda --world 2
step bench-tp2-trtllm 60 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp2-trtllm --out "$R/tp2-trtllm"
mkdir -p diag
step diag 120 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 2 "$R/diag" --check --bench --samples 100 --json "$R/diag/bench.json"
cp "$R/steps.txt" "$OUT/steps.txt"
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
grep -h "selftest" "$R/selftest-tp2.log" "$R/selftest-ws-tp2.log"
grep -E "check:|diagnostics:" "$R/diag/tp2.rank0.log"
for d in tp2-trtllm; do echo "== $d"; sed -n '/## Latency/,/## Eager/p' "$R/$d/report.md" | grep "^| ("; done
grep -E "^ *(512|1024|2048|4096) +[0-9]+ " "$R/diag/tp2.rank0.log"
