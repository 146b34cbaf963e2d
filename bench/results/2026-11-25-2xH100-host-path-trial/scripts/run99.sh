#!/usr/bin/env bash
# After run 98 (2 x H100): the host path tried at communicator creation (kept only where it pays on
# the host), and the sweep's untimed call after each barrier. GPU JUnit tests, selftest, the quick
# start twice, the TP2 sweep, and the diagnostics at 32/64 MiB with the host path auto and forced on.
# Usage: bash bench/results/2026-11-25-2xH100-host-path-trial/scripts/run99.sh   (optional: RUN)
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
REPO="$ROOT"
RUN="${RUN:-99}"
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
source "$LIBS" >"$R/libs.txt"
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
}
head -3 "$R/host.txt"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest \
  --select-class dev.gpucomm.runtime.hostir.programs.ProgramsOnCudaTest --details=tree
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
step selftest-tp2 90 "$G" selftest --device cuda --world 2
tail -1 "$R/selftest-tp2.log"
for i in 1 2; do
  step quick-start-$i 120 "$G" run -f "$REPO/examples/allreduce-sweep.yaml" --out "$R/quick-start-$i"
  grep '^| (' "$R/quick-start-$i.log"
done
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
GPUCOMM_DEBUG=1 step bench-tp2-trtllm 120 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot \
  --heuristic trtllm --name tp2-trtllm --out "$R/tp2-trtllm"
grep -A12 '## Latency' "$R/tp2-trtllm/report.md" | grep 'MB |'
grep -i "host path" "$R/bench-tp2-trtllm.log" | head -4
for mode in auto on; do
  mkdir -p "$R/diag-$mode"
  GPUCOMM_HOST_PATH=$mode step diag-$mode 120 bash "$REPO/bench/cuda-diagnostics.sh" "$G" 2 "$R/diag-$mode" \
    --check --bench --tokens 2048,4096 --json "$R/diag-$mode.json"
  grep -E "host path|^communicator" "$R/diag-$mode/tp2.rank0.log" | head -3
  grep -E "(oneshot|oneshot_ws|oneshot_wsh) .*64 MiB|64 MiB.*(oneshot|wsh)" "$R/diag-$mode/tp2.rank0.log" | head -6
done
