#!/usr/bin/env bash
# 4 x H200: the warp-specialized kernels at four ranks. GPU tests; selftest with the defaults and
# with the specialized kernels forced at every size; the CUDA diagnostics (every kernel checked
# bit for bit and measured, then the pipeline-depth sweep); gpucomm bench with today's defaults
# and with one-shot ws from 8 MiB and two-shot ws from 16 MiB; columnParallelLinear at TP4 with
# power and SM clocks sampled beside it.
# Usage: bash bench/results/2026-11-22-4xH200-warp-specialized/scripts/run35.sh
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
R="$WORK/r35"
mkdir -p "$R/diag" "$R/chunks" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv; nvidia-smi topo -m; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r35.tar.gz" -C "$WORK" r35
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest \
  --select-class dev.gpucomm.runtime.hostir.programs.ProgramsOnCudaTest --details=tree
step selftest-tp4 60 "$G" selftest --device cuda --world 4
GPUCOMM_ONESHOT_WS_MIN_BYTES=16 GPUCOMM_TWOSHOT_WS_MIN_BYTES=16 GPUCOMM_LAMPORT_MAX_BYTES=0 GPUCOMM_LAMPORT2_MAX_BYTES=0 \
  step selftest-ws-tp4 60 "$G" selftest --device cuda --world 4
GPUCOMM_LAMPORT_MAX_BYTES=4194304 GPUCOMM_LAMPORT2_MAX_BYTES=4194304 \
  step diag-tp4 150 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 4 "$R/diag" --check --bench --samples 100 --json "$R/diag/bench.json"
step chunks-tp4 200 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 4 "$R/chunks" --tune-chunks --json "$R/chunks/chunks.json"
step bench-tp4-trtllm 60 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp4-trtllm --out "$R/tp4-trtllm"
GPUCOMM_ONESHOT_WS_MIN_BYTES=8388608 GPUCOMM_TWOSHOT_WS_MIN_BYTES=16777216 \
  step bench-tp4-trtllm-ws 60 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp4-trtllm-ws --out "$R/tp4-trtllm-ws"
nvidia-smi --query-gpu=timestamp,index,power.draw.instant,clocks.sm,utilization.gpu --format=csv,nounits -lms 10 >"$R/smi-column-parallel.csv" 2>&1 &
S=$!
step column-parallel-linear-tp4 90 "$G" run -f "$HERE/programs/column-parallel-linear-tp4.yaml" --out "$R/column-parallel-linear-tp4"
kill $S
tar -czf "$OUT/r35.tar.gz" -C "$WORK" r35
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
tail -n 2 "$R/selftest-tp4.log" "$R/selftest-ws-tp4.log"
grep -E "check:|diagnostics:" "$R/diag/tp4.rank0.log" | tail -5
grep -E " (8388608|16777216|33554432|67108864) " "$R/diag/tp4.rank0.log" | tail -32
tail -40 "$R/chunks/tp4.rank0.log"
